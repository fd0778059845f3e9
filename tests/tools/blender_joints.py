# Imports a .glb in Blender (background mode) and prints, per armature bone, its rest and posed
# world matrices at the requested scene frames as JSON lines on stdout:
#   blender -b --factory-startup --python blender_joints.py -- FILE.glb FPS FRAME...
# Each line: {"bone": name, "frame": f or null (rest), "matrix": 16 floats, row-major}.
import json
import sys

import bpy
import numpy

# Blender 3.4's glTF importer (gltf2_blender_mesh.py) still uses numpy.bool, which numpy 1.24
# removed; Debian bookworm ships exactly that pair.
if "bool" not in numpy.__dict__:
    numpy.bool = bool

argv = sys.argv[sys.argv.index("--") + 1:]
path, fps, frames = argv[0], int(argv[1]), [int(f) for f in argv[2:]]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.context.scene.render.fps = fps
bpy.ops.import_scene.gltf(filepath=path, guess_original_bind_pose=False)
arms = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
print("BLENDER_INFO " + json.dumps({"version": bpy.app.version_string, "armatures": len(arms),
      "actions": [a.name for a in bpy.data.actions]}))


def emit(bone, frame, m):
    print("BLENDER_JOINT " + json.dumps({"bone": bone, "frame": frame,
          "matrix": [m[r][c] for r in range(4) for c in range(4)]}))


for arm in arms:
    for b in arm.data.bones:
        emit(b.name, None, arm.matrix_world @ b.matrix_local)
for f in frames:
    bpy.context.scene.frame_set(f)
    bpy.context.view_layer.update()
    for arm in arms:
        for pb in arm.pose.bones:
            emit(pb.name, f, arm.matrix_world @ pb.matrix)
