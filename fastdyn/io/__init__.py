"""Robots in and out of files: URDF and MJCF (each parser fills a ``Description`` that
``to_model`` turns into a Model) and fastdyn's own npz format.

    from fastdyn.io import load_mjcf, load_npz, load_urdf, save_npz
    model = load_urdf("robot.urdf", root_joint="freeflyer")
    model = load_mjcf("scene.xml")            # MuJoCo's MJCF
"""

from .description import Description, DescriptionError, to_model
from .npz import load_npz, save_npz
from .mjcf import MJCFError, MJCFWarning, load_mjcf, mjcf_collisions, parse_mjcf
from .mjcf_constraints import mjcf_constraints
from .srdf import SRDF, load_srdf
from .urdf import URDFError, URDFWarning, load_urdf, parse_urdf

__all__ = ["load_urdf", "parse_urdf", "URDFError", "URDFWarning", "load_mjcf", "parse_mjcf",
           "mjcf_collisions", "mjcf_constraints", "MJCFError", "MJCFWarning", "Description",
           "DescriptionError", "to_model", "load_npz", "save_npz", "load_srdf", "SRDF"]
