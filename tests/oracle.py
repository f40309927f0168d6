"""Build the Pinocchio twin of a fastdyn Model, joint by joint, for cross-checks.

Nothing here comes from fastdyn's kernels: only the model's raw fields are read.
"""

import numpy as np
import pinocchio as pin

from fastdyn.kernels.joints import codes


def _joint_model(r, pr):
    t = int(r["type"])
    ax = np.array(pr["axis"])
    simple = {codes.REVOLUTE_X: pin.JointModelRX, codes.REVOLUTE_Y: pin.JointModelRY,
              codes.REVOLUTE_Z: pin.JointModelRZ, codes.CONTINUOUS_X: pin.JointModelRUBX,
              codes.CONTINUOUS_Y: pin.JointModelRUBY, codes.CONTINUOUS_Z: pin.JointModelRUBZ,
              codes.PRISMATIC_X: pin.JointModelPX, codes.PRISMATIC_Y: pin.JointModelPY,
              codes.PRISMATIC_Z: pin.JointModelPZ, codes.SPHERICAL: pin.JointModelSpherical,
              codes.SPHERICAL_ZYX: pin.JointModelSphericalZYX,
              codes.FREEFLYER: pin.JointModelFreeFlyer, codes.PLANAR: pin.JointModelPlanar,
              codes.TRANSLATION: pin.JointModelTranslation}
    if t in simple:
        return simple[t]()
    if t == codes.REVOLUTE:
        return pin.JointModelRevoluteUnaligned(ax)
    if t == codes.CONTINUOUS:
        # The Python binding takes no axis: let Pinocchio's own URDF parser make the joint.
        xml = ('<robot name="r"><link name="a"/><link name="b"/><joint name="j" '
               'type="continuous"><parent link="a"/><child link="b"/>'
               f'<axis xyz="{float(ax[0])!r} {float(ax[1])!r} {float(ax[2])!r}"/></joint></robot>')
        return pin.buildModelFromXML(xml).joints[1]
    if t == codes.PRISMATIC:
        return pin.JointModelPrismaticUnaligned(ax)
    if t == codes.HELICAL:
        return pin.JointModelHelicalUnaligned(ax, float(pr["pitch"]))
    if t == codes.UNIVERSAL:
        return pin.JointModelUniversal(ax, np.array(pr["axis2"]))
    raise ValueError(f"no Pinocchio joint for type {t}")


def to_pinocchio(model):
    pm = pin.Model()
    pm.name = model.name
    for i in range(1, model.njoints):
        r, pr = model.jnt[i], model.params[i]
        placement = pin.SE3(np.array(pr["R"]), np.array(pr["p"]))
        jid = pm.addJoint(int(r["parent"]), _joint_model(r, pr), placement, model.joint_names[i])
        assert jid == i
        Y = pin.Inertia(float(model.mass[i]), model.com[i].copy(), model.inertia[i].copy())
        pm.appendBodyToJoint(jid, Y, pin.SE3.Identity())
    nv = model.nv
    pm.armature = model.armature.copy() if nv else pm.armature
    pm.gravity.linear = np.array(model.gravity)
    for k in range(1, model.nframes):
        f = model.frm[k]
        pm.addFrame(pin.Frame(model.frame_names[k], int(f["parent_joint"]), int(f["parent_frame"]),
                              pin.SE3(np.array(f["R"]), np.array(f["p"])),
                              pin.FrameType(int(f["type"]))), False)
    return pm


# Pinocchio joint model name -> fastdyn type code (the types a URDF parse can give)
PIN_JOINT_TYPES = {"JointModelRX": codes.REVOLUTE_X, "JointModelRY": codes.REVOLUTE_Y,
              "JointModelRZ": codes.REVOLUTE_Z, "JointModelRevoluteUnaligned": codes.REVOLUTE,
              "JointModelRUBX": codes.CONTINUOUS_X, "JointModelRUBY": codes.CONTINUOUS_Y,
              "JointModelRUBZ": codes.CONTINUOUS_Z,
              "JointModelRevoluteUnboundedUnaligned": codes.CONTINUOUS,
              "JointModelPX": codes.PRISMATIC_X, "JointModelPY": codes.PRISMATIC_Y,
              "JointModelPZ": codes.PRISMATIC_Z, "JointModelPrismaticUnaligned": codes.PRISMATIC,
              "JointModelFreeFlyer": codes.FREEFLYER, "JointModelPlanar": codes.PLANAR,
              "JointModelSpherical": codes.SPHERICAL,
              "JointModelTranslation": codes.TRANSLATION}
