"""Robot description parsers: each fills a ``Description`` that ``to_model`` turns into a Model.

    from fastdyn.parsers import load_mjcf, load_urdf
    model = load_urdf("robot.urdf", root_joint="freeflyer")
    model = load_mjcf("scene.xml")            # MuJoCo's MJCF
"""

from .description import Description, DescriptionError, to_model
from .mjcf import MJCFError, MJCFWarning, load_mjcf, mjcf_collisions, parse_mjcf
from .urdf import URDFError, URDFWarning, load_urdf, parse_urdf

__all__ = ["load_urdf", "parse_urdf", "URDFError", "URDFWarning", "load_mjcf", "parse_mjcf",
           "mjcf_collisions", "MJCFError", "MJCFWarning", "Description", "DescriptionError",
           "to_model"]
