"""Load robots from URDF files: a bundled arm with a fixed base, a bundled quadruped on a
free-flyer, and what a model holds (its joints, frames and inertias).

    python -m fastdyn.examples.load_urdf

``fd.load_urdf(path, root_joint=...)`` reads any URDF file; ``fd.models.path(name)`` is
where a bundled one lives (``fd.models.load(name)`` does both). Fixed joints become frames,
as in Pinocchio, and the links they carry add their inertia to the moving body.
"""

import numpy as np

import fastdyn as fd


def main(short: bool = False) -> dict:
    path = fd.models.path("ur5")
    arm = fd.load_urdf(path)  # fixed base
    data = arm.create_data()
    q = np.array([0.0, -1.57, 1.57, 0.0, 1.57, 0.0])  # [rad]
    fd.forward_kinematics(arm, data, q)
    tool = fd.frame_placement(arm, data, "tool0")  # 4x4 in the world
    gravity = fd.rnea(arm, data, q, np.zeros(arm.nv), np.zeros(arm.nv)).copy()
    print(f"{path.name}: {arm.name!r}, nq = {arm.nq}, nv = {arm.nv}, "
          f"{arm.nframes} frames, mass {arm.mass.sum():.3f} kg")
    print(f"  joints: {', '.join(arm.joint_names[1:])}")
    print(f"  tool0 at q = {q.tolist()}: {np.round(tool[:3, 3], 4).tolist()} m")
    print(f"  gravity torque there: {np.round(gravity, 3).tolist()} N m")

    legged = fd.load_urdf(fd.models.path("quadruped"), root_joint="freeflyer")
    print(f"quadruped.urdf on a free-flyer: nq = {legged.nq} (x, y, z, qx, qy, qz, qw and "
          f"{legged.nq - 7} joints), nv = {legged.nv}, mass {legged.mass.sum():.3f} kg")
    return {"arm": arm, "q": q, "tool": tool, "gravity": gravity, "legged": legged,
            "path": path}


if __name__ == "__main__":
    main()
