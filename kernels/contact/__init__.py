"""Contact and time stepping: constraint rows (contacts, friction, joint limits), the Delassus
matrix, the solvers (projected Gauss-Seidel, ADMM, active set), soft contact (MuJoCo's
solref/solimp), one Moreau-Jean step and its derivatives."""
