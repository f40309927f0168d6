"""Transition Jacobians of simulator steps with collision geoms (Scene.add_geom: contacts from
the narrow phase, kernels/contact/geom_derivatives.py) against central finite differences of
Scene.step itself, each perturbed step started cold with a tight solver tolerance, the active
set (each contact's rows, stick or slide, its gap's sign) kept by every perturbation.

What geom_derivatives.py holds fixed decides where the Jacobians are exact. The contact frame
turns with the body whose face gives the normal (a box's, a plane's), and is fixed where that
is the world's or where two faces tie (flat on flat); the point p moves with a sphere's (or
capsule's) centre, with a vertex on a face, with the moving body against the world,
else as a material point of each body. Exact, each at a tight tolerance: a box resting flat on
the ground plane, pushed sideways on it, on a world box and flat on a free box (the normals
tie), a sphere geom on a world box's face, a sphere resting on or sliding over a free box's
face as the face turns, a box's vertex on a free box's face, at rest and sliding."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import fastdyn as fd
from conftest import close, step_jacobians_by_differences

G = 9.81
H = 0.1  # box half-size [m]
MASS = 1.5
MU = 0.5
EPS = 1e-6
TIGHT = dict(tolerance=1e-15, iterations=5000)


def bodies(n, mass=MASS, h=H):
    """n free-flying solid cubes (joints b0.., half-size h)."""
    b = fd.ModelBuilder(f"boxes{n}", gravity=(0.0, 0.0, -G))
    for i in range(n):
        b.add_joint(f"b{i}", "freeflyer")
        b.add_body(f"b{i}", mass, inertia=np.eye(3) * mass * (2 * h) ** 2 / 6)
    return b.build()


def pose(x=0.0, y=0.0, z=H, yaw=0.0):
    return np.array([x, y, z, 0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2)])


def active_set(scene):
    """Each geom contact of the step just taken: apart, stick or slide (its force against mu
    times its normal force), and the sign of its distance."""
    c = scene.geom_contacts
    out = []
    for n, f, d in zip(c.normal, c.force, c.dist):
        fn = f @ n
        ft = np.linalg.norm(f - fn * n)
        kind = "apart" if fn == 0.0 else ("slide" if ft >= MU * fn * (1 - 1e-9) else
                                          "stick")
        out.append((kind, bool(d > 0.0)))
    return tuple(out)


def agree(scene, q, v, tau, expect, tol, fext=None, eps=EPS):
    """Scene.step_derivatives against central differences of Scene.step on the nominal active
    set, whose kinds must be ``expect`` (relative to the largest entry, as conftest.close). The
    next state is Scene.step's, bit for bit (through a one-step horizon)."""
    A, B = scene.step_derivatives(q, v, tau, fext)
    h = scene.horizon(q, v, tau[None])
    assert np.array_equal(h.A[0], A) and np.array_equal(h.B[0], B)
    scene.reset()
    qn, vn = scene.step(q, v, tau, fext)
    assert np.array_equal(qn, h.q[1]) and np.array_equal(vn, h.v[1])
    nominal = active_set(scene)
    assert [k for k, _ in nominal] == list(expect), nominal

    def step(q, v, tau):
        scene.reset()
        out = scene.step(q, v, tau, fext)
        assert active_set(scene) == nominal, "the perturbation changed the active set"
        return out

    fA, fB = step_jacobians_by_differences(scene.model, step, q, v, tau, eps)
    close(A, fA, tol)
    close(B, fB, tol)


def box_on_ground(**kw):
    scene = fd.Scene(bodies(1), dt=1e-3, mu=MU, **{**TIGHT, **kw})
    scene.add_geom("b0", "box", size=(H, H, H), friction=MU)
    return scene


# --- exact: the normal a face of the world or of a box that stays flat -------------------------

def test_box_resting_flat_on_the_ground_plane():
    """The four bottom corners (the plane-box manifold), 10 um into the ground, pushed down,
    yawed (the corners' frames are the plane's)."""
    scene = box_on_ground()
    tau = np.array([0.0, 0.0, -3.0, 0.0, 0.0, 0.0])
    agree(scene, pose(z=H - 1e-5, yaw=0.3), np.array([0.0, 0.0, -0.01, 0, 0, 0]), tau,
          ["stick"] * 4, 1e-8)  # reached 3.8e-11


def test_box_pushed_sideways_on_the_ground():
    """Tangential forces at the corners: the corners' own motion (p = corner - d n / 2, not a
    material point of the box) matters here, and is the box's corner's."""
    scene = box_on_ground()
    tau = np.array([0.3 * MU * MASS * G, 0.1, 0.0, 0.0, 0.0, 0.05])
    agree(scene, pose(z=H - 1e-5, yaw=0.3), np.zeros(6), tau, ["stick"] * 4,
          1e-8)  # reached 3.3e-11


def test_box_resting_on_a_world_box():
    scene = fd.Scene(bodies(1), dt=1e-3, mu=MU, ground=False, **TIGHT)
    scene.add_geom("b0", "box", size=(H, H, H), friction=MU)
    scene.add_geom(None, "box", size=(2 * H, 2 * H, H), pos=(0.0, 0.0, -H), friction=MU)
    agree(scene, pose(z=H - 1e-5, yaw=0.3), np.zeros(6), np.zeros(6), ["stick"] * 4,
          1e-8)  # reached 3.3e-11


def test_sphere_on_a_world_box_face():
    """The sphere's point is p = c - (r + d / 2) n, c its centre: it rolls, not a material
    point of the sphere."""
    scene = fd.Scene(bodies(1), dt=1e-3, mu=MU, ground=False, **TIGHT)
    scene.add_geom("b0", "sphere", size=(H,), friction=MU)
    scene.add_geom(None, "box", size=(2 * H, 2 * H, H), pos=(0.0, 0.0, -H), friction=MU)
    agree(scene, pose(x=0.03, y=-0.02, z=H - 1e-5), np.array([0, 0, -0.01, 0, 0, 0.0]),
          np.array([0.0, 0.0, -1.0, 0.0, 0.0, 0.3]), ["stick"], 1e-9)  # reached 1.0e-12


def test_box_flat_on_a_free_box_on_the_ground():
    """Eight box-box contacts (a yawed square on a square) and four on the ground. Flat on
    flat, the separating-axis test's normal is a face normal of whichever box a perturbation
    leaves flat (the two tie), so it does not turn: the frame held fixed is exact here, and
    both boxes move (neither is the world: p as a material point of each is exact at rest)."""
    scene = fd.Scene(bodies(2), dt=1e-3, mu=MU, **TIGHT)
    scene.add_geom("b0", "box", size=(H, H, H), friction=MU)
    scene.add_geom("b1", "box", size=(H, H, H), friction=MU)
    q = np.r_[pose(z=H - 1e-5), pose(z=3 * H - 2e-5, yaw=0.2)]
    agree(scene, q, np.zeros(12), np.zeros(12), ["stick"] * 12, 1e-8)  # reached 1.2e-10


def test_box_on_soft_ground():
    """MuJoCo's solref / solimp on the ground and the box (their mix): the impedance at
    r = d - margin and the compliance move with the gap. The impedance's curvature (width
    1 mm, the corners 0.2 mm deep) makes the central differences' own error eps^2-sized:
    1.2e-5, 1.2e-7, 1.3e-9 at eps = 1e-5, 1e-6, 1e-7."""
    scene = fd.Scene(bodies(1), dt=1e-3, mu=MU, solref=(0.02, 1.0),
                     solimp=(0.9, 0.95, 0.001, 0.5, 2), **TIGHT)
    scene.add_geom("b0", "box", size=(H, H, H), friction=MU)
    tau = np.array([0.2 * MU * MASS * G, 0.0, -2.0, 0.0, 0.0, 0.05])
    agree(scene, pose(z=H - 2e-4, yaw=0.3), np.array([0.0, 0.0, -0.01, 0, 0, 0]), tau,
          ["stick"] * 4, 1e-7, eps=1e-7)  # reached 1.3e-9


# --- a moving body's face: the frame turns with it ------------------------------------------

def test_sphere_on_a_free_box_rolls_as_the_face_tilts():
    """The sphere rests on the box's top face, whose normal turns with the box: tilting the
    box tilts the contact frame, and the sphere starts rolling, d v+ / d tilt ~ dt (5/7) g / r
    for its spin (0.14 /s here). Held fixed, the frame missed exactly that (an error of 0.064
    at A's entry for the sphere's spin against the box's tilt, 3.0e-4 of A's largest)."""
    r = H / 2
    scene = fd.Scene(bodies(2), dt=1e-3, mu=MU, **TIGHT)
    scene.add_geom("b0", "box", size=(H, H, H), friction=MU)
    scene.add_geom("b1", "sphere", size=(r,), friction=MU)
    q = np.r_[pose(z=H - 1e-5), pose(x=0.03, y=-0.02, z=2 * H + r - 2e-5)]
    agree(scene, q, np.zeros(12), np.zeros(12), ["stick"] * 5, 1e-9)  # reached 3.8e-11


def _tilted(axis, angle):
    """A unit quaternion (x, y, z, w) and its rotation matrix."""
    R = Rotation.from_rotvec(np.asarray(axis, float) / np.linalg.norm(axis) * angle)
    return R.as_quat(), R.as_matrix()


def test_sphere_sliding_on_a_tilted_spinning_box():
    """No ground: a sphere slides over the top face of a free box that is tilted, moving and
    spinning, so the turning frame's rows see a relative velocity (e x v_rel) and the force
    turns too. Central differences' own error is eps^2-sized here (1.4e-4, 1.4e-6, 4.7e-8
    at eps = 1e-5, 1e-6, 1e-7); held fixed, the frame was off by 1.65."""
    r = H / 2
    scene = fd.Scene(bodies(2), dt=1e-3, mu=MU, ground=False, **TIGHT)
    scene.add_geom("b0", "box", size=(H, H, H), friction=MU)
    scene.add_geom("b1", "sphere", size=(r,), friction=MU)
    quat, R = _tilted([1.0, 0.3, 0.0], 0.2)
    q = np.r_[0.0, 0.0, 0.0, quat, R @ [0.02, -0.01, H + r - 2e-5], 0.0, 0.0, 0.0, 1.0]
    v = np.r_[0.1, -0.05, 0.02, 0.3, -0.2, 0.5, R @ [0.4, 0.1, -0.01], 1.0, -2.0, 0.5]
    tau = np.r_[np.zeros(8), -5.0, 0.0, 0.0, 0.0]
    agree(scene, q, v, tau, ["slide"], 1e-9, eps=1e-7)  # reached 5.4e-11


@pytest.mark.parametrize("moving", [False, True])
def test_box_on_a_vertex_on_a_tilted_free_box(moving):
    """No ground: a small box turned so that one vertex touches a tilted free box's top face.
    The normal is that face's (the small box's faces are not parallel to it): it turns with
    the big box, and the contact point is the vertex, a material point of the small box that
    slides over the face (held fixed, with p a material point of each: 0.22 at rest, 2.7
    moving). At rest it sticks, moving it slides; eps^2-sized differences' error moving
    (6.0e-3, 6.0e-5, 5.4e-7 at eps = 1e-5, 1e-6, 1e-7)."""
    r = H / 2
    scene = fd.Scene(bodies(2), dt=1e-3, mu=MU, ground=False, **TIGHT)
    scene.add_geom("b0", "box", size=(H, H, H), friction=MU)
    scene.add_geom("b1", "box", size=(r, r, r), friction=MU)
    quat, Rb = _tilted([0.2, 1.0, 0.0], 0.15)
    Rs = Rb @ Rotation.from_rotvec([0.5, 0.4, 0.3]).as_matrix()
    corners = np.array([[x, y, z] for x in (-r, r) for y in (-r, r) for z in (-r, r)])
    low = min(corners, key=lambda x: (Rb.T @ Rs @ x)[2])  # the vertex nearest the face
    c = Rb @ [0.01, 0.02, H] - Rs @ low - 2e-5 * Rb[:, 2]
    q = np.r_[0.0, 0.0, 0.0, quat, c, Rotation.from_matrix(Rs).as_quat()]
    v = np.r_[0.05, 0, 0, 0.2, -0.1, 0.3, 0.02, 0.01, -0.03, 0.1, 0.2, -0.1] * moving
    tau = np.r_[np.zeros(8), -2.0, 0.0, 0.0, 0.0]
    agree(scene, q, v, tau, ["slide" if moving else "stick"], 1e-8 if moving else 1e-9,
          eps=1e-7 if moving else EPS)  # reached 8.3e-10 moving, 4.2e-11 at rest
