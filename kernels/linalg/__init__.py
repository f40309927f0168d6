"""Dense and sparse linear algebra for the kernels: the tree-sparse Cholesky factorization of
the mass matrix (Featherstone, RBDA sec. 6.5), dense symmetric factorizations and Gaussian
elimination for the contact problems."""
