"""The viewer's scene graph as meshcat commands: kept here, written to a self-contained HTML
file, and forwarded to a live meshcat server when one is open.

``Recorder`` is a meshcat window (what ``meshcat.Visualizer(window=...)`` sends commands to):
it keeps the last object, transform and properties of every path and the last animation,
as meshcat's server does, so the HTML replays the scene whether or not a server ran.
meshcat's own ``static_html()`` asks its server for this; here no server is needed, and
the commands run in order as the page loads (meshcat's export fetches each from a data: URL,
asynchronously). The page inlines meshcat's bundled viewer (three.js and msgpack, about
0.85 MB of JavaScript) and the scene, so it opens offline.
"""

from __future__ import annotations

import base64
import os

import numpy as np

__all__ = ["Recorder", "html_page"]


class Recorder:
    """A meshcat window that records: ``tree`` maps each path to its last "set_object",
    "set_transform" and "set_property" commands (meshcat command objects: ``.path``,
    ``.matrix``, ``.object``); ``animation`` is the last "set_animation"; ``live``, when
    set, is a meshcat ``ViewerWindow`` every command is also sent to."""

    def __init__(self):
        self.tree: dict[str, dict] = {}
        self.animation = None
        self.live = None

    def send(self, command) -> None:
        kind = type(command).__name__
        path = command.path.lower() if hasattr(command, "path") else ""
        if kind == "SetAnimation":
            self.animation = command
        elif kind == "Delete":
            for p in [p for p in self.tree if p == path or p.startswith(path + "/")]:
                del self.tree[p]
        else:
            node = self.tree.setdefault(path, {})
            key = ("set_property", command.key) if kind == "SetProperty" else kind
            node[key] = command
        if self.live is not None:
            self.live.send(command)

    def commands(self) -> list:
        """Every kept command in the order a page replays them: per path (in the order
        the paths appeared) its object, properties and transform; the animation last."""
        out = []
        for node in self.tree.values():
            out += [c for k, c in node.items() if k == "SetObject"]
            out += [c for k, c in node.items() if isinstance(k, tuple)]
            out += [c for k, c in node.items() if k == "SetTransform"]
        return out + ([self.animation] if self.animation is not None else [])

    def transforms(self) -> dict[str, np.ndarray]:
        """path -> its last set_transform matrix (4x4)."""
        return {p: np.asarray(n["SetTransform"].matrix) for p, n in self.tree.items()
                if "SetTransform" in n}

    def objects(self) -> list[str]:
        """The paths that hold an object, in the order they were set."""
        return [p for p, n in self.tree.items() if "SetObject" in n]

    def get_scene(self) -> str:  # meshcat's Visualizer.static_html() asks its window this
        return html_page(self.commands())


_PAGE = """<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><title>{title}</title>
<style>body {{margin: 0;}} #meshcat-pane {{width: 100vw; height: 100vh; overflow: hidden;}}
</style></head>
<body>
<div id="meshcat-pane"></div>
<script>
{viewer_js}
</script>
<script>
var viewer = new MeshCat.Viewer(document.getElementById("meshcat-pane"));
function run(b64) {{
  var s = atob(b64), a = new Uint8Array(s.length);
  for (var i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
  viewer.handle_command_bytearray(a);
}}
var commands = [
{commands}
];
for (var k = 0; k < commands.length; k++) run(commands[k]);
</script>
</body>
</html>
"""


def viewer_js() -> str:
    """meshcat's bundled viewer (main.min.js: three.js, its loaders and meshcat's code)."""
    import meshcat

    path = os.path.join(os.path.dirname(meshcat.__file__), "viewer", "dist", "main.min.js")
    with open(path, encoding="utf-8") as f:
        return f.read().replace("</script", "<\\/script")


def html_page(commands, title: str = "fastdyn viewer") -> str:
    """A page that draws meshcat ``commands`` (command objects) with no network."""
    import umsgpack  # meshcat's own dependency

    blobs = (base64.b64encode(umsgpack.packb(c.lower())).decode("ascii") for c in commands)
    return _PAGE.format(title=title.replace("<", "&lt;"), viewer_js=viewer_js(),
                        commands=",\n".join(f'"{b}"' for b in blobs))
