"""Load a robot from MuJoCo's MJCF: a pendulum written inline, its model checked against the
formulas of a rigid pendulum.

    python -m fastdyn.examples.load_mjcf

``fd.load_mjcf`` takes a file path or the document itself (a string starting with "<"). Here
the pendulum's body has an explicit ``<inertial>``: mass m at distance L below the hinge and
rotational inertia I_yy about its centre, so about the hinge the inertia is I_yy + m L^2
(parallel axes) and gravity pulls with m g L sin(theta). A Menagerie robot loads the same
way: ``fd.load_mjcf("mujoco_menagerie/franka_emika_panda/panda.xml")``.
"""

import numpy as np

import fastdyn as fd

MASS, LENGTH, I_YY = 2.0, 0.5, 0.01  # [kg], [m], [kg m^2]
PENDULUM = f"""
<mujoco model="pendulum">
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="0.05"/>
      <inertial pos="0 0 -{LENGTH}" mass="{MASS}" diaginertia="{I_YY} {I_YY} {I_YY}"/>
      <geom type="capsule" fromto="0 0 0 0 0 -{LENGTH}" size="0.02"/>
      <site name="tip" pos="0 0 -{LENGTH}"/>
    </body>
  </worldbody>
</mujoco>
"""


def main(short: bool = False) -> dict:
    model = fd.load_mjcf(PENDULUM)
    data = model.create_data()
    theta = np.array([np.pi / 6])  # 30 degrees
    M = fd.crba(model, data, theta)[0, 0]
    g = fd.compute_generalized_gravity(model, data, theta)[0]
    fd.forward_kinematics(model, data, theta)
    tip = fd.frame_placement(model, data, "tip")[:3, 3]
    # small oscillations: M theta'' = -m g L theta, period 2 pi sqrt(M / (m g L))
    period = 2 * np.pi * np.sqrt(M / (MASS * 9.81 * LENGTH))
    print(f"{model.name}: nq = {model.nq}, joint {model.joint_names[1]!r}, damping "
          f"{model.params['damping'][1, 0]:g} N m s/rad")
    print(f"  inertia about the hinge {M:.4f} kg m^2 (I_yy + m L^2 = "
          f"{I_YY + MASS * LENGTH**2:.4f})")
    print(f"  torque holding it at 30 deg {g:.4f} N m (m g L sin = "
          f"{MASS * 9.81 * LENGTH * np.sin(theta[0]):.4f}); tip at "
          f"{np.round(tip, 4).tolist()} m")
    print(f"  small-oscillation period {period:.4f} s")
    return {"M": M, "gravity": g, "tip": tip, "period": period, "theta": theta[0]}


if __name__ == "__main__":
    main()
