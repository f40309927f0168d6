"""fastdyn's bundled robot descriptions (installed as the package ``fastdyn.models_data``).

Load them with ``fastdyn.models.load(name)``; ``generate.py`` here rewrites the generated ones.
"""
