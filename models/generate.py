"""Generate the larger bundled URDFs: ur5.urdf, quadruped.urdf, humanoid.urdf.

    python models/generate.py          # rewrites the three files beside this script

Pure standard library; the output is deterministic, so regenerating is a no-op unless the
parameters below change. The source of every parameter is noted here and in each file's
header comment. double_pendulum.urdf is written by hand.
"""

from __future__ import annotations

import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def f(x: float) -> str:
    """A number as URDF text: 12 digits when that is exact to 1e-15 (no rounding noise such as
    0.0019300000000000002), else the shortest round-trip form (pi / 2 to the last bit)."""
    x = float(x) + 0.0
    short = "%.12g" % x
    return short if abs(float(short) - x) <= 1e-15 * max(1.0, abs(x)) else repr(x)


def v3(x) -> str:
    return " ".join(f(c) for c in x)


class Urdf:
    def __init__(self, name: str, header: str):
        self.lines = ['<?xml version="1.0"?>', "<!-- " + header.strip() + " -->",
                      f'<robot name="{name}">']

    def link(self, name: str, mass: float | None = None, com=(0, 0, 0), rpy=(0, 0, 0),
             inertia=(0, 0, 0, 0, 0, 0)):
        if mass is None:
            self.lines.append(f'  <link name="{name}"/>')
            return
        ixx, iyy, izz, ixy, ixz, iyz = inertia
        self.lines += [f'  <link name="{name}">', "    <inertial>",
                       f'      <origin xyz="{v3(com)}" rpy="{v3(rpy)}"/>',
                       f'      <mass value="{f(mass)}"/>',
                       f'      <inertia ixx="{f(ixx)}" ixy="{f(ixy)}" ixz="{f(ixz)}" '
                       f'iyy="{f(iyy)}" iyz="{f(iyz)}" izz="{f(izz)}"/>',
                       "    </inertial>", "  </link>"]

    def joint(self, name: str, kind: str, parent: str, child: str, xyz=(0, 0, 0), rpy=(0, 0, 0),
              axis=None, limit=None, damping: float | None = None):
        out = [f'  <joint name="{name}" type="{kind}">', f'    <parent link="{parent}"/>',
               f'    <child link="{child}"/>', f'    <origin xyz="{v3(xyz)}" rpy="{v3(rpy)}"/>']
        if axis is not None:
            out.append(f'    <axis xyz="{v3(axis)}"/>')
        if limit is not None:
            lo, hi, effort, vel = limit
            out.append(f'    <limit lower="{f(lo)}" upper="{f(hi)}" effort="{f(effort)}" '
                       f'velocity="{f(vel)}"/>')
        if damping is not None:
            out.append(f'    <dynamics damping="{f(damping)}" friction="0"/>')
        self.lines += out + ["  </joint>"]

    def comment(self, text: str):
        self.lines.append(f"  <!-- {text} -->")

    def text(self) -> str:
        return "\n".join(self.lines + ["</robot>", ""])


def cylinder(m: float, r: float, length: float, axis: int) -> tuple:
    """(ixx, iyy, izz, 0, 0, 0) of a solid cylinder along ``axis`` about its centre."""
    t = m * (3 * r * r + length * length) / 12.0
    d = [t, t, t]
    d[axis] = m * r * r / 2.0
    return (*d, 0.0, 0.0, 0.0)


def box(m: float, a: float, b: float, c: float) -> tuple:
    return (m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12, 0, 0, 0)


def rot_x(a: float, c) -> list:
    ca, sa = math.cos(a), math.sin(a)
    return [c[0], ca * c[1] - sa * c[2], sa * c[1] + ca * c[2]]


# --- UR5 ----------------------------------------------------------------------------------------
# Source: Universal Robots, "DH parameters for calculations of kinematics and dynamics" (public
# support article), UR5 column: standard DH a, d, alpha; link masses; centres of mass in the DH
# frame of each link. UR does not publish inertia tensors: they are solid-cylinder
# approximations here (radius and length listed below), as ros-industrial's ur_description also
# approximates them. Limits: +-2 pi, 3.15 rad/s, 150 N m (base, shoulder, elbow) and 28 N m
# (wrists), the values of the UR5 technical specification used by ur_description.
UR5_D = [0.089159, 0.0, 0.0, 0.10915, 0.09465, 0.0823]
UR5_A = [0.0, -0.425, -0.39225, 0.0, 0.0, 0.0]
UR5_ALPHA = [math.pi / 2, 0.0, 0.0, math.pi / 2, -math.pi / 2, 0.0]
UR5_MASS = [3.7, 8.393, 2.33, 1.219, 1.219, 0.1879]
UR5_COM = [[0.0, -0.02561, 0.00193], [0.2125, 0.0, 0.11336], [0.15, 0.0, 0.0265],
           [0.0, -0.0018, 0.01634], [0.0, 0.0018, 0.01634], [0.0, 0.0, -0.001159]]
# (radius, length, axis in the DH frame) of the approximating cylinders
UR5_CYL = [(0.06, 0.15, 1), (0.06, 0.425, 0), (0.05, 0.39225, 0), (0.045, 0.12, 2),
           (0.045, 0.12, 2), (0.0375, 0.03, 2)]
UR5_JOINTS = ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
              "wrist_2_joint", "wrist_3_joint"]
UR5_LINKS = ["shoulder_link", "upper_arm_link", "forearm_link", "wrist_1_link", "wrist_2_link",
             "wrist_3_link"]
UR5_EFFORT = [150.0, 150.0, 150.0, 28.0, 28.0, 28.0]


def ur5() -> str:
    """Joint i turns about z of DH frame i-1; link i's URDF frame is that frame after the turn,
    so joint i+1's origin is Tz(d_i) Tx(a_i) Rx(alpha_i) and link i's inertial sits at
    (a_i, 0, d_i) + Rx(alpha_i) c_i with the DH frame's axes (rpy = alpha_i, 0, 0)."""
    u = Urdf("ur5", """fastdyn bundled model, generated by models/generate.py.
     UR5 6-DoF arm from Universal Robots' published standard DH parameters, link masses and
     centres of mass ("DH parameters for calculations of kinematics and dynamics", UR5);
     inertia tensors are solid-cylinder approximations (UR does not publish them); limits
     from the UR5 specification (+-2 pi rad, 3.15 rad/s, 150/28 N m).""")
    u.link("base_link", 4.0, (0, 0, 0.03), (0, 0, 0), cylinder(4.0, 0.075, 0.06, 2))
    parent, xyz, rpy = "base_link", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    for i in range(6):
        u.joint(UR5_JOINTS[i], "revolute", parent, UR5_LINKS[i], xyz, rpy, (0, 0, 1),
                (-2 * math.pi, 2 * math.pi, UR5_EFFORT[i], 3.15), damping=0.0)
        r, length, ax = UR5_CYL[i]
        c = rot_x(UR5_ALPHA[i], UR5_COM[i])
        com = (UR5_A[i] + c[0], c[1], UR5_D[i] + c[2])
        u.link(UR5_LINKS[i], UR5_MASS[i], com, (UR5_ALPHA[i], 0, 0),
               cylinder(UR5_MASS[i], r, length, ax))
        parent, xyz, rpy = UR5_LINKS[i], (UR5_A[i], 0.0, UR5_D[i]), (UR5_ALPHA[i], 0.0, 0.0)
    u.joint("ee_fixed_joint", "fixed", "wrist_3_link", "tool0", xyz, rpy)
    u.link("tool0")
    return u.text()


# --- Quadruped ----------------------------------------------------------------------------------
# Solo-like sizes: Open Dynamic Robot Initiative's Solo 12 as described in its public papers and
# CAD (Grimminger et al., "An Open Torque-Controlled Modular Robot Architecture for Legged
# Locomotion Research", RA-L 2020): ~2.2 kg, 0.16 m thigh and shank, hips 0.39 m apart along x
# and 0.175 m along y; masses split approximately as below, boxes and cylinders for inertias.
# Joints per leg: HAA (about x), HFE (about y), KFE (about y); a massless FOOT frame per leg.
# Meant for a free-flyer root (fastdyn.models.load("quadruped") adds one).
QUAD = dict(base_mass=0.9, base_size=(0.39, 0.14, 0.05), hip_x=0.1946, hip_y=0.0875,
            shoulder_mass=0.14, shoulder_y=0.014, thigh_mass=0.15, thigh=0.16, shank_mass=0.04,
            shank=0.16, foot_y=0.008, effort=2.7, velocity=30.0)


def quadruped() -> str:
    q = QUAD
    u = Urdf("quadruped", """fastdyn bundled model, generated by models/generate.py.
     A 12-DoF quadruped with Solo-12-like sizes (ODRI Solo 12: Grimminger et al., RA-L 2020;
     0.16 m thigh and shank, hips 0.39 m x 0.175 m apart, ~2.2 kg); masses split
     approximately, box and cylinder inertias. Load with a free-flyer root joint.""")
    u.link("base_link", q["base_mass"], (0, 0, 0), (0, 0, 0), box(q["base_mass"], *q["base_size"]))
    for leg, sx, sy in (("FL", 1, 1), ("FR", 1, -1), ("HL", -1, 1), ("HR", -1, -1)):
        lim = lambda lo, hi: (lo, hi, q["effort"], q["velocity"])  # noqa: E731
        u.joint(f"{leg}_HAA", "revolute", "base_link", f"{leg}_SHOULDER",
                (sx * q["hip_x"], sy * q["hip_y"], 0), (0, 0, 0), (1, 0, 0), lim(-1.2, 1.2))
        u.link(f"{leg}_SHOULDER", q["shoulder_mass"], (-sx * 0.02, sy * 0.01, 0), (0, 0, 0),
               cylinder(q["shoulder_mass"], 0.025, 0.06, 0))
        u.joint(f"{leg}_HFE", "revolute", f"{leg}_SHOULDER", f"{leg}_UPPER_LEG",
                (0, sy * q["shoulder_y"], 0), (0, 0, 0), (0, 1, 0), lim(-2.5, 2.5))
        u.link(f"{leg}_UPPER_LEG", q["thigh_mass"], (0, sy * 0.015, -q["thigh"] / 2), (0, 0, 0),
               cylinder(q["thigh_mass"], 0.02, q["thigh"], 2))
        u.joint(f"{leg}_KFE", "revolute", f"{leg}_UPPER_LEG", f"{leg}_LOWER_LEG",
                (0, sy * 0.0375, -q["thigh"]), (0, 0, 0), (0, 1, 0), lim(-3.0, 3.0))
        u.link(f"{leg}_LOWER_LEG", q["shank_mass"], (0, sy * q["foot_y"], -q["shank"] / 2),
               (0, 0, 0), cylinder(q["shank_mass"], 0.01, q["shank"], 2))
        u.joint(f"{leg}_ANKLE", "fixed", f"{leg}_LOWER_LEG", f"{leg}_FOOT",
                (0, sy * q["foot_y"], -q["shank"]))
        u.link(f"{leg}_FOOT")
    return u.text()


# --- Humanoid -----------------------------------------------------------------------------------
# A 30-DoF humanoid (2 torso, 2 neck, 7 per arm, 6 per leg) of height H and mass M with segment
# mass fractions, lengths (fractions of H), centre-of-mass positions (fraction of the segment
# from its proximal joint) and transverse radii of gyration (fraction of the segment length)
# from Winter, "Biomechanics and Motor Control of Human Movement" (4th ed., 2009), Table 4.1,
# whose lengths follow Drillis & Contini (1966). Longitudinal moments: solid cylinders of the
# radius listed (an assumption, not from the tables). Right-side roll and yaw joints turn about
# negative axes (mirror convention). Hip-to-sole height is thigh + shank + ankle height = 0.530 H,
# Winter's hip height. Meant for a free-flyer root.
H, M = 1.60, 55.0
SEG = {  # mass fraction, length / H, com / length from proximal, radius of gyration / length, r [m]
    "pelvis": (0.142, 0.100, 0.5, 0.0, 0.0),
    "abdomen": (0.139, 0.094, 0.5, 0.0, 0.0),
    "thorax": (0.216, 0.194, 0.5, 0.0, 0.0),
    "head": (0.081, 0.182, 0.5, 0.495, 0.0),
    "upper_arm": (0.028, 0.186, 0.436, 0.322, 0.045),
    "forearm": (0.016, 0.146, 0.430, 0.303, 0.035),
    "hand": (0.006, 0.108, 0.506, 0.297, 0.03),
    "thigh": (0.100, 0.245, 0.433, 0.323, 0.07),
    "shank": (0.0465, 0.246, 0.433, 0.302, 0.045),
    "foot": (0.0145, 0.152, 0.50, 0.475, 0.03),
}
HIP_HEIGHT, SHOULDER_HEIGHT, ANKLE_HEIGHT = 0.530, 0.818, 0.039  # fractions of H
SHOULDER_WIDTH, HIP_WIDTH = 0.259, 0.191  # biacromial and bi-iliac breadths / H
LIM = dict(torso=(1.0, 150.0, 6.0), neck=(1.2, 20.0, 6.0), shoulder=(2.6, 80.0, 6.0),
           elbow=(2.4, 60.0, 6.0), wrist=(1.5, 20.0, 6.0), hip=(1.8, 200.0, 6.0),
           knee=(2.4, 250.0, 6.0), ankle=(0.9, 120.0, 6.0))


def _segment(name: str) -> tuple[float, float, float, tuple]:
    """(mass, length, com distance from the proximal joint, inertia) of a limb segment along
    -z of its frame."""
    frac, lf, cf, rg, r = SEG[name]
    m, L = frac * M, lf * H
    it = m * (rg * L) ** 2
    return m, L, cf * L, (it, it, m * r * r / 2.0, 0.0, 0.0, 0.0)


def humanoid() -> str:
    u = Urdf("humanoid", f"""fastdyn bundled model, generated by models/generate.py.
     A 30-DoF humanoid (torso 2, neck 2, arms 2 x 7, legs 2 x 6), height {H} m, segments of
     {M} kg in all (joint-housing links add 2.3 kg):
     segment masses, lengths, centres of mass and radii of gyration from Winter, Biomechanics
     and Motor Control of Human Movement (2009), Table 4.1 (lengths after Drillis and Contini);
     trunk segments as boxes, head as a sphere. Load with a free-flyer root joint.""")

    def limited(kind: str, lo: float | None = None):
        hi, effort, vel = LIM[kind]
        return (-hi if lo is None else lo, hi, effort, vel)

    # trunk: pelvis (root) -> abdomen (yaw) -> thorax (pitch) -> head (neck yaw, pitch)
    m = SEG["pelvis"][0] * M
    u.link("pelvis", m, (0, 0, 0.02), (0, 0, 0), box(m, 0.18, HIP_WIDTH * H + 0.08, 0.16))
    u.joint("torso_yaw_joint", "revolute", "pelvis", "abdomen", (0, 0, 0.08), (0, 0, 0),
            (0, 0, 1), limited("torso"), damping=0.5)
    m = SEG["abdomen"][0] * M
    ha = SEG["abdomen"][1] * H
    u.link("abdomen", m, (0, 0, ha / 2), (0, 0, 0), box(m, 0.18, 0.28, ha))
    u.joint("torso_pitch_joint", "revolute", "abdomen", "thorax", (0, 0, ha), (0, 0, 0),
            (0, 1, 0), limited("torso", -0.3), damping=0.5)
    m = SEG["thorax"][0] * M
    shoulder_z = (SHOULDER_HEIGHT - HIP_HEIGHT) * H - 0.08 - ha
    u.link("thorax", m, (0, 0, shoulder_z / 2), (0, 0, 0), box(m, 0.2, 0.32, SEG["thorax"][1] * H))
    u.joint("neck_yaw_joint", "revolute", "thorax", "neck", (0, 0, shoulder_z + 0.05), (0, 0, 0),
            (0, 0, 1), limited("neck"))
    u.link("neck", 0.3, (0, 0, 0.03), (0, 0, 0), cylinder(0.3, 0.04, 0.06, 2))
    u.joint("neck_pitch_joint", "revolute", "neck", "head", (0, 0, 0.06), (0, 0, 0), (0, 1, 0),
            limited("neck"))
    m = SEG["head"][0] * M - 0.3
    rh = 0.1
    u.link("head", m, (0.01, 0, 0.09), (0, 0, 0), (0.4 * m * rh * rh,) * 3 + (0, 0, 0))
    u.joint("camera_joint", "fixed", "head", "camera_link", (0.09, 0, 0.1), (-math.pi / 2, 0,
            -math.pi / 2))
    u.link("camera_link")

    for side, s in (("l", 1.0), ("r", -1.0)):
        # arm: shoulder pitch (y), roll (x), yaw (z), elbow (y), wrist yaw (z), pitch (y), roll (x)
        mu, lu, cu, iu = _segment("upper_arm")
        mf, lf, cf, i_f = _segment("forearm")
        mh, lh, ch, ih = _segment("hand")
        u.joint(f"{side}_shoulder_pitch_joint", "revolute", "thorax", f"{side}_shoulder_pitch_link",
                (0, s * SHOULDER_WIDTH * H / 2, shoulder_z), (0, 0, 0), (0, 1, 0),
                limited("shoulder"))
        u.link(f"{side}_shoulder_pitch_link", 0.4, (0, s * 0.02, 0), (0, 0, 0),
               cylinder(0.4, 0.04, 0.06, 1))
        u.joint(f"{side}_shoulder_roll_joint", "revolute", f"{side}_shoulder_pitch_link",
                f"{side}_shoulder_roll_link", (0, s * 0.04, 0), (0, 0, 0), (s, 0, 0),
                limited("shoulder", -0.3))
        u.link(f"{side}_shoulder_roll_link")
        u.joint(f"{side}_shoulder_yaw_joint", "revolute", f"{side}_shoulder_roll_link",
                f"{side}_upper_arm", (0, 0, 0), (0, 0, 0), (0, 0, s), limited("shoulder"))
        u.link(f"{side}_upper_arm", mu, (0, 0, -cu), (0, 0, 0), iu)
        u.joint(f"{side}_elbow_joint", "revolute", f"{side}_upper_arm", f"{side}_forearm",
                (0, 0, -lu), (0, 0, 0), (0, 1, 0), limited("elbow", -2.4), damping=0.2)
        u.link(f"{side}_forearm", mf, (0, 0, -cf), (0, 0, 0), i_f)
        u.joint(f"{side}_wrist_yaw_joint", "revolute", f"{side}_forearm", f"{side}_wrist_yaw_link",
                (0, 0, -lf), (0, 0, 0), (0, 0, s), limited("wrist"))
        u.link(f"{side}_wrist_yaw_link")
        u.joint(f"{side}_wrist_pitch_joint", "revolute", f"{side}_wrist_yaw_link",
                f"{side}_wrist_pitch_link", (0, 0, 0), (0, 0, 0), (0, 1, 0), limited("wrist"))
        u.link(f"{side}_wrist_pitch_link", 0.05, (0, 0, -0.01), (0, 0, 0),
               cylinder(0.05, 0.02, 0.02, 2))
        u.joint(f"{side}_wrist_roll_joint", "revolute", f"{side}_wrist_pitch_link",
                f"{side}_wrist_roll_link", (0, 0, -0.02), (0, 0, 0), (s, 0, 0), limited("wrist"))
        u.link(f"{side}_wrist_roll_link")
        u.joint(f"{side}_hand_joint", "fixed", f"{side}_wrist_roll_link", f"{side}_hand",
                (0, 0, -0.01), (0, 0, 0))
        u.link(f"{side}_hand", mh, (0, 0, -ch), (0, 0, 0), ih)
        u.joint(f"{side}_gripper_joint", "fixed", f"{side}_hand", f"{side}_gripper",
                (0, 0, -lh), (0, math.pi, 0))
        u.link(f"{side}_gripper")

        # leg: hip yaw (z), roll (x), pitch (y), knee (y), ankle pitch (y), roll (x)
        mt, lt, ct, it = _segment("thigh")
        ms, ls, cs, is_ = _segment("shank")
        mfo, lfo, _, ifo = _segment("foot")
        u.joint(f"{side}_hip_yaw_joint", "revolute", "pelvis", f"{side}_hip_yaw_link",
                (0, s * HIP_WIDTH * H / 2, 0), (0, 0, 0), (0, 0, s), limited("hip", -0.6))
        u.link(f"{side}_hip_yaw_link", 0.6, (0, 0, -0.02), (0, 0, 0), cylinder(0.6, 0.04, 0.06, 2))
        u.joint(f"{side}_hip_roll_joint", "revolute", f"{side}_hip_yaw_link",
                f"{side}_hip_roll_link", (0, 0, 0), (0, 0, 0), (s, 0, 0),
                limited("hip", -0.5))
        u.link(f"{side}_hip_roll_link")
        u.joint(f"{side}_hip_pitch_joint", "revolute", f"{side}_hip_roll_link", f"{side}_thigh",
                (0, 0, 0), (0, 0, 0), (0, 1, 0), limited("hip", -2.2))
        u.link(f"{side}_thigh", mt, (0, 0, -ct), (0, 0, 0), it)
        u.joint(f"{side}_knee_joint", "revolute", f"{side}_thigh", f"{side}_shank", (0, 0, -lt),
                (0, 0, 0), (0, 1, 0), limited("knee", 0.0), damping=0.3)
        u.link(f"{side}_shank", ms, (0, 0, -cs), (0, 0, 0), is_)
        u.joint(f"{side}_ankle_pitch_joint", "revolute", f"{side}_shank",
                f"{side}_ankle_pitch_link", (0, 0, -ls), (0, 0, 0), (0, 1, 0), limited("ankle"))
        u.link(f"{side}_ankle_pitch_link", 0.1, (0, 0, 0), (0, 0, 0), cylinder(0.1, 0.02, 0.05, 1))
        u.joint(f"{side}_ankle_roll_joint", "revolute", f"{side}_ankle_pitch_link",
                f"{side}_foot", (0, 0, 0), (0, 0, 0), (s, 0, 0), limited("ankle", -0.5))
        # the foot is a box lying along x, its com a quarter of its length ahead of the ankle
        hf = ANKLE_HEIGHT * H
        u.link(f"{side}_foot", mfo, (0.25 * lfo, 0, -hf / 2), (0, math.pi / 2, 0), ifo)
        u.joint(f"{side}_sole_joint", "fixed", f"{side}_foot", f"{side}_sole",
                (0.25 * lfo, 0, -hf))
        u.link(f"{side}_sole")
    return u.text()


MODELS = {"ur5.urdf": ur5, "quadruped.urdf": quadruped, "humanoid.urdf": humanoid}


def main() -> None:
    for name, make in MODELS.items():
        path = os.path.join(HERE, name)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(make())
        print("wrote", path)


if __name__ == "__main__":
    main()
