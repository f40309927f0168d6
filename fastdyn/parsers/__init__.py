"""Robot description parsers: each fills a ``Description`` that ``to_model`` turns into a Model.

    from fastdyn.parsers import load_urdf
    model = load_urdf("robot.urdf", root_joint="freeflyer")
"""

from .description import Description, DescriptionError, to_model
from .urdf import URDFError, URDFWarning, load_urdf, parse_urdf

__all__ = ["load_urdf", "parse_urdf", "URDFError", "URDFWarning", "Description",
           "DescriptionError", "to_model"]
