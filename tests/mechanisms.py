"""MJCF mechanisms with equality constraints, shared by the closed-loop tests
(test_mjcf_constraints.py, test_scene_closed_loops.py, test_step_derivatives_equalities.py).

Each test file asks for its own options (timestep, integrator, contact off) and geom
attributes; the bodies, joints and masses are the same everywhere."""


def fourbar(option: str = '<option gravity="0 0 -9.81"/>', geom: str = "",
            connect: str = "") -> str:
    """A planar four-bar: crank and coupler on hinges from the origin, a rocker hinged at
    x = 0.6, the coupler's tip connected to the rocker's ("close"). ``geom``: attributes added
    to every geom; ``connect``: to the connect element."""
    g = f" {geom}" if geom else ""
    c = f" {connect}" if connect else ""
    return f"""<mujoco model="fourbar"><compiler angle="radian"/>
  {option}
  <worldbody>
    <body name="crank"><joint name="j1" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.5"{g}/>
      <body name="coupler" pos="0.2 0 0"><joint name="j2" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.02" mass="1"{g}/></body></body>
    <body name="rocker" pos="0.6 0 0"><joint name="j3" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 -0.4 0 0.5" size="0.02" mass="0.8"{g}/></body>
  </worldbody>
  <equality><connect name="close" body1="coupler" body2="rocker" anchor="0 0 0.5"{c}/>
  </equality></mujoco>"""


def arm(name: str, x: float, axes, geom: str = "") -> str:
    """A chain of capsules on hinges about ``axes``, from (x, 0, 0) up, its tip carrying a
    turned site ``<name>tip``; bodies ``<name>0..``, joints ``<name>j0..``."""
    g = f" {geom}" if geom else ""
    s, close = "", ""
    for k, ax in enumerate(axes):
        pos = f"{x} 0 0" if k == 0 else "0 0 0.25"
        s += (f'<body name="{name}{k}" pos="{pos}"><joint name="{name}j{k}" axis="{ax}"/>'
              f'<geom type="capsule" fromto="0 0 0 0 0 0.25" size="0.03" '
              f'mass="{0.5 + k / 10}"{g}/>')
        close += "</body>"
    return s + f'<site name="{name}tip" pos="0.02 0.01 0.27" quat="0.9 0.1 0.2 0.3"/>' + close


def arms(equality: str, option: str = "", geom: str = "") -> str:
    """Two four-hinge chains side by side (axes mixed so that a weld's rows between their tips
    are all independent) and ``equality`` between them."""
    return (f'<mujoco>{option}<worldbody>'
            f'{arm("a", 0.0, ["0 0 1", "0 1 0", "0 1 0", "1 0 0"], geom)}'
            f'{arm("b", 0.3, ["0 0 1", "1 0 0", "0 1 0", "0 1 0"], geom)}'
            f'</worldbody><equality>{equality}</equality></mujoco>')
