"""Robots in and out of files: URDF and MJCF (each parser fills a ``Description`` that
``to_model`` turns into a Model) and fastdyn's own npz format.

    from fastdyn.io import load_mjcf, load_npz, load_urdf, save_npz
    model = load_urdf("robot.urdf", root_joint="freeflyer")
    model = load_mjcf("scene.xml")            # MuJoCo's MJCF
    visuals = load_visuals("robot.urdf")      # what a viewer draws (fastdyn.view)
    vertices, faces = load_mesh("link.stl")   # a mesh file (trimesh: the extra "view")
    geoms = collision_geoms(model, "robot.urdf")   # contact geoms on the model's joints
"""

from .description import Description, DescriptionError, to_model
from .npz import load_npz, save_npz
from .meshes import MeshWarning, TriangleMesh, load_mesh, try_load_mesh
from .mjcf import MJCFError, MJCFWarning, load_mjcf, mjcf_collisions, mjcf_visuals, parse_mjcf
from .mjcf_constraints import mjcf_constraints, mjcf_equalities
from .srdf import SRDF, load_srdf
from .urdf import URDFError, URDFWarning, load_urdf, parse_urdf, urdf_collisions, urdf_visuals
from .visuals import Visual, link_placement, load_visuals, resolve_mesh_path
from .geoms import CollisionGeoms, collision_geoms

__all__ = ["load_urdf", "parse_urdf", "URDFError", "URDFWarning", "load_mjcf", "parse_mjcf",
           "mjcf_collisions", "mjcf_constraints", "mjcf_equalities", "MJCFError", "MJCFWarning",
           "Description", "DescriptionError", "to_model", "load_npz", "save_npz", "load_srdf",
           "SRDF", "urdf_collisions", "urdf_visuals", "mjcf_visuals", "Visual", "load_visuals",
           "resolve_mesh_path", "load_mesh", "try_load_mesh", "TriangleMesh", "MeshWarning",
           "collision_geoms", "CollisionGeoms", "link_placement"]
