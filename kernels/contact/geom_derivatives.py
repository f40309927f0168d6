"""Derivatives of a time step's geom contact rows (geom_rows.py) for step_derivatives.py.

A geom contact (bodies b1, b2; point p halfway between the narrow phase's witness points,
frame (n, t1, t2) from the normal n, signed distance d) has the rows
J_e = e^T (J_p(b2) - J_p(b1)), e in (n, t1, t2), and the targets of geom_rows.py. What the
derivatives hold fixed and what they differentiate:
- the gap: d(q (+) dq) = d + n^T (u_b2(w2) - u_b1(w1)) dq to first order (the envelope
  theorem: the witness points w1, w2 are the closest points, so their own motion along the
  surfaces does not change d to first order), and since w2 - w1 = d n, n^T u_b(w) = n^T u_b(p)
  for a point of either body: dd/dq = J_n exactly. The targets' slopes (rigid: 1 / dt apart,
  erp / dt in penetration; soft: dt K (d(r) + d'(r) r) at r = d - margin, compliance
  (1 - d) / d (w1 + w2) and its slope) take it;
- the frame (n, t1, t2) turns with the body whose face gives the normal (``_turning``: a
  box's face, a plane's, a cylinder's cap, when the other geom's faces are not parallel to
  it): de/dq_j = w_j x e for each of n, t1, t2 (w_j that body's angular column; the tangents
  turn rigidly with n, a choice that changes no row set: a spin about n only renames the
  tangent percussions), which adds w_j . (e x v_rel) to d(J_e w)/dq_j and (u_k^2(p) -
  u_k^1(p)) . (w_j x f) to d(J^T lam)_k/dq_j. It is held at its value where the face is the
  world's (exact), where two faces tie (flat on flat: a perturbation keeps the face it leaves
  flat, so the normal does not turn to first order) and where the normal is no face's (an
  edge on an edge, a curved surface against a curved one: approximate);
- the point p moves as the narrow phase moves it where its geometry says so, else as a
  material point of each body. With D_j^b = dp/dq_j - u_j^b(p) (u_j^b(p) the velocity column
  of body b's material point at p) the terms of p's own motion are
    d(J_e w)/dq_j:     e . (W2 x D_j^2 - W1 x D_j^1)      (W_b body b's angular velocity at w)
    d(J^T lam)_k/dq_j: (w_k^2 x D_j^2 - w_k^1 x D_j^1) . f
  (w_k^b: body b's angular column; f = lam_n n + lam_t1 t1 + lam_t2 t2, on body 2, -f on body
  1), added to the material point's (kinematics_derivatives.py at LOCAL_WORLD_ALIGNED, and the
  world-fixed force's correction, equality_derivatives.moved_force). p = x -+ s n for x a
  material point of one body ("the owner"): a sphere's or capsule's (geom 2, or else geom 1)
  centre or segment point, s = r + d / 2 (its witness point rolls over the surface: p stays
  below the centre); else, against the world (the ground, a world geom), the moving body's
  witness point, s = d / 2 (a box corner: p = corner - d n / 2), and likewise the witness
  point of the body whose vertex or edge touches the other's turning face; so dp/dq_j =
  u_j^o(x) -+ J_n,j n / 2 -+ s dn/dq_j. Two moving bodies otherwise (flat on flat, edge on
  edge): D = 0 (material points of each: exact at rest).
  (A capsule's segment point is material at the segment's ends, where a capsule lying on a
  face touches; elsewhere it slides along the segment, which is dropped.)
Exact therefore (tests/test_step_derivatives_geoms.py) where the normal is a world face and
p's owner is one of the above (a box resting or pushed sideways on the ground or on a world box,
a sphere on a world box), where a moving body's face gives the normal (a sphere resting on or
sliding over a tilted, spinning free box; a box's vertex on one, at rest and sliding) and
where the normal does not turn to first order (a box flat on a box, at rest: the two faces
tie); approximate in an edge-edge contact between moving bodies and for curved surfaces
against each other (sphere on sphere, capsule on capsule: their normal turns with both
centres), and soft geom contacts are differentiated like soft sphere contacts (their
impedance at r = d - margin) but not tested against differences here.
"""

from .._jit import jit
from ..collision.geoms import (BOX, C_DIST, C_POS, CAPSULE, CYLINDER, G_MARGIN, G_SIZE, PLANE,
                               SPHERE)
from ..layout import LOCAL_WORLD_ALIGNED, O_DT, O_ERP, O_IMPRATIO
from ..algorithms.kinematics_derivatives import kinematics_derivatives, motion_derivatives
from .constraint_derivatives import EQUAL, FIXED
from .equality_derivatives import apply_wrench, moved_force
from .geom_detect import float_views, int_views
from .geom_rows import mix
from .softness import impedance, impedance_slope, stiffness_damping


@jit(inline="always")  # returns views: compiled into its caller
def _views(geo, gf, pair, rows):
    """(con, frame, hrow, cg, xmat) of the geoms' scratch (geom_detect.py's views)."""
    geom, gprm, verts, gaux, binv = geo
    ng = geom.shape[0]
    K, P = gaux[0], gaux[1]
    xpos, xmat, box, con, wf, hrow, frame, force = float_views(gf, ng, K)
    order, pairs, cg, wi, key, cslot, crow, taken, info = int_views(pair[rows:], ng, K, P)
    return con, frame, hrow, cg, xmat


@jit
def geom_targets(geo, opt, gf, nc, pair, nsph, nsp, rows, kind, kb, er):
    """kb (the normal target's slope in d) and er (soft: -(1 - dt B) on the three rows) of the
    EQUAL geom contacts among the step's nc (module docstring); nsph the sphere pairs (contact
    entries below it are theirs), nsp where the geom contacts' entries start."""
    geom, gprm, verts, gaux, binv = geo
    con, frame, hrow, cg, xmat = _views(geo, gf, pair, rows)
    dt, erp = opt[O_DT], opt[O_ERP]
    for i in range(nc):
        n = 3 * i
        if pair[i] < nsph or kind[n] != EQUAL:
            continue
        g = pair[i] - nsp
        g1, g2 = cg[g, 0], cg[g, 1]
        d = con[g, C_DIST]
        if mix(gprm, g1, g2, hrow):
            r = d - max(gprm[g1, G_MARGIN], gprm[g2, G_MARGIN])
            K, B = stiffness_damping(hrow, dt)
            kb[n] = dt * K * (impedance(hrow, r) + impedance_slope(hrow, r) * r)
            er[n] = er[n + 1] = er[n + 2] = -(1.0 - dt * B)
        else:
            kb[n] = 1.0 / dt if d > 0.0 else erp / dt


@jit
def geom_compliance(geo, opt, gf, nc, lam, pair, nsph, nsp, kind, J, Phi):
    """Phi's lam_r dR_r/dq of the non-FIXED rows of soft geom contacts: R_r = rho_r (1 - d) / d
    (w1 + w2) moves with the gap (rho_r: 1 on the normal, 1 / impratio on the tangents)."""
    geom, gprm, verts, gaux, binv = geo
    con, frame, hrow, cg, xmat = _views(geo, gf, pair, J.shape[0])
    nv = J.shape[1]
    for i in range(nc):
        n = 3 * i
        if pair[i] < nsph or kind[n] == FIXED:
            continue
        g = pair[i] - nsp
        g1, g2 = cg[g, 0], cg[g, 1]
        if not mix(gprm, g1, g2, hrow):
            continue
        r = con[g, C_DIST] - max(gprm[g1, G_MARGIN], gprm[g2, G_MARGIN])
        d = impedance(hrow, r)
        slope = -impedance_slope(hrow, r) / (d * d) * (binv[geom[g1].body] + binv[geom[g2].body])
        for row in range(n, n + 3):
            if kind[row] == FIXED:
                continue
            c = lam[row] * slope / (1.0 if row == n else max(opt[O_IMPRATIO], 1e-15))
            for k in range(nv):
                Phi[row, k] += c * J[n, k]


@jit
def geom_wrenches(geo, gf, ws, nc, lam, pair, nsph, nsp, rows, dt, F):
    """Adds each geom contact's world force (lam_n n + lam_t1 t1 + lam_t2 t2) / dt at p to F
    as LOCAL forces: on body 2, and its opposite on body 1."""
    geom = geo[0]
    con, frame, hrow, cg, xmat = _views(geo, gf, pair, rows)
    zero = (0.0, 0.0, 0.0)
    for i in range(nc):
        if pair[i] < nsph:
            continue
        n = 3 * i
        g = pair[i] - nsp
        f = _force(frame[g], lam, n)
        f = (f[0] / dt, f[1] / dt, f[2] / dt)
        p0, p1, p2 = con[g, C_POS], con[g, C_POS + 1], con[g, C_POS + 2]
        apply_wrench(ws, geom[cg[g, 1]].body, 1.0, p0, p1, p2, f, zero, F)
        apply_wrench(ws, geom[cg[g, 0]].body, -1.0, p0, p1, p2, f, zero, F)


@jit
def _force(fr, lam, n):
    """lam_n n + lam_t1 t1 + lam_t2 t2 of rows n..n+2 in the frame fr = [n, t1, t2]."""
    return (lam[n] * fr[0] + lam[n + 1] * fr[3] + lam[n + 2] * fr[6],
            lam[n] * fr[1] + lam[n + 1] * fr[4] + lam[n + 2] * fr[7],
            lam[n] * fr[2] + lam[n + 1] * fr[5] + lam[n + 2] * fr[8])


@jit
def _point(jnt, ws, b, p0, p1, p2, pl, DQ, DV):
    """The velocity derivatives of body b's material point p (zeros for the world)."""
    if b <= 0:
        for i in range(6):
            for k in range(DQ.shape[1]):
                DQ[i, k] = 0.0
                DV[i, k] = 0.0
        return
    pl[9], pl[10], pl[11] = p0, p1, p2
    none = DQ[:, :0]
    motion_derivatives(jnt, ws, b, pl, 0, LOCAL_WORLD_ALIGNED, DQ, DV, none, none, none)


@jit
def geom_terms(jnt, prm, geo, q, w, ws, gf, nc, lam, pair, nsph, nsp, kind, er, soft, dt, za,
               pl, E, Aq, Phi):
    """The kinematics_derivatives pass at velocity w, then for each geom contact: with ``soft``
    False (w = v+), Phi's rows e^T d(u_b2(p) - u_b1(p))/dq at w on the non-FIXED rows and Aq's
    world-fixed force correction; with ``soft`` True (w = v), er times the same on soft rows
    (their targets' -(1 - dt B) d(J v)/dq). E (>= 4, 6, nv) scratch."""
    geom = geo[0]
    con, frame, hrow, cg, xmat = _views(geo, gf, pair, Phi.shape[0])
    nv = w.shape[0]
    for k in range(nv):
        za[k] = 0.0
    kinematics_derivatives(jnt, prm, q, w, za, ws)
    for i in range(nc):
        n = 3 * i
        if pair[i] < nsph:
            continue
        if soft and er[n] == 0.0:
            continue
        moved = lam[n] != 0.0 or lam[n + 1] != 0.0 or lam[n + 2] != 0.0
        if not soft and kind[n] == FIXED and not moved:
            continue
        g = pair[i] - nsp
        fr = frame[g]
        b1, b2 = geom[cg[g, 0]].body, geom[cg[g, 1]].body
        p0, p1, p2 = con[g, C_POS], con[g, C_POS + 1], con[g, C_POS + 2]
        _point(jnt, ws, b2, p0, p1, p2, pl, E[0], E[1])
        _point(jnt, ws, b1, p0, p1, p2, pl, E[2], E[3])
        for e in range(3):
            r = n + e
            if soft:
                c = er[r]
            else:
                c = 0.0 if kind[r] == FIXED else 1.0
            if c == 0.0:
                continue
            a0, a1, a2 = fr[3 * e], fr[3 * e + 1], fr[3 * e + 2]
            for k in range(nv):
                Phi[r, k] += c * (a0 * (E[0, 0, k] - E[2, 0, k]) + a1 * (E[0, 1, k] - E[2, 1, k])
                                  + a2 * (E[0, 2, k] - E[2, 2, k]))
        turn = _turning(geom, xmat, cg[g, 0], cg[g, 1], fr)
        if turn != 0:
            _turned_rows(fr, w, kind, n, er, soft, E, turn, Phi)
        if soft:
            continue
        f = _force(fr, lam, n)
        if moved:
            moved_force(jnt, b2, 1.0, f, E[1], dt, Aq)
            moved_force(jnt, b1, -1.0, f, E[3], dt, Aq)
            if turn != 0:
                _turned_force(f, dt, E, turn, Aq)
        _sliding_point(geom, geo[1], cg[g, 0], cg[g, 1], b1, b2, con[g, C_DIST], fr, f, w, kind,
                       n, dt, E, turn, Aq, Phi)


@jit
def _turning(geom, xmat, g1, g2, fr):
    """Which body's rotation turns the contact frame (module docstring): 2 (1) when the normal
    is a face normal of geom 2's (1's) body only (a box's face, a plane's, a cylinder's cap:
    the normal a column of the geom's rotation, to 1e-12) and that body moves; 0 when it is a
    face of neither (an edge, a vertex, a curved surface: held fixed), of both (a face flat on
    a face: the normals tie, and a perturbation keeps the face it leaves flat), or of the
    world."""
    f1, f2 = _face(geom, xmat, g1, fr), _face(geom, xmat, g2, fr)
    if f1 == f2:
        return 0
    b = geom[g1].body if f1 else geom[g2].body
    if b == 0:
        return 0
    return 1 if f1 else 2


@jit
def _face(geom, xmat, g, fr):
    """True when the normal fr[:3] is (anti)parallel to a face normal of geom g."""
    t = geom[g].type
    R = xmat[g]
    for c in range(3):
        if t == BOX or c == 2 and (t == PLANE or t == CYLINDER):
            x = fr[0] * R[0, c] + fr[1] * R[1, c] + fr[2] * R[2, c]
            if abs(x) >= 1.0 - 1e-12:
                return True
    return False


@jit
def _turned_rows(fr, w, kind, n, er, soft, E, turn, Phi):
    """The frame turning with body ``turn``'s rotation, de/dq_j = w_j x e (w_j its angular
    column; the tangents turn with the normal: a spin about n changes no row set), adds to
    Phi[e, j] the row's (w_j x e) . (u_2(p) - u_1(p)) at w = w_j . (e x v_rel); times er[r]
    on soft rows (``soft``), on the non-FIXED rows otherwise."""
    nv = w.shape[0]
    O = E[1] if turn == 2 else E[3]
    v0 = v1 = v2 = 0.0
    for k in range(nv):
        v0 += (E[1, 0, k] - E[3, 0, k]) * w[k]
        v1 += (E[1, 1, k] - E[3, 1, k]) * w[k]
        v2 += (E[1, 2, k] - E[3, 2, k]) * w[k]
    for e in range(3):
        r = n + e
        c = er[r] if soft else (0.0 if kind[r] == FIXED else 1.0)
        if c == 0.0:
            continue
        a0, a1, a2 = fr[3 * e], fr[3 * e + 1], fr[3 * e + 2]
        x0, x1, x2 = a1 * v2 - a2 * v1, a2 * v0 - a0 * v2, a0 * v1 - a1 * v0  # e x v_rel
        for j in range(nv):
            Phi[r, j] += c * (O[3, j] * x0 + O[4, j] * x1 + O[5, j] * x2)


@jit
def _turned_force(f, dt, E, turn, Aq):
    """The contact force turning with the frame: d(J^T lam)_k/dq_j = (u_k^2(p) - u_k^1(p)) .
    (w_j x f), taken from Aq[k, j] over dt as the other force terms."""
    nv = Aq.shape[0]
    O = E[1] if turn == 2 else E[3]
    for j in range(nv):
        y0 = O[4, j] * f[2] - O[5, j] * f[1]
        y1 = O[5, j] * f[0] - O[3, j] * f[2]
        y2 = O[3, j] * f[1] - O[4, j] * f[0]
        if y0 == 0.0 and y1 == 0.0 and y2 == 0.0:
            continue
        for k in range(nv):
            Aq[k, j] -= ((E[1, 0, k] - E[3, 0, k]) * y0 + (E[1, 1, k] - E[3, 1, k]) * y1
                         + (E[1, 2, k] - E[3, 2, k]) * y2) / dt


@jit
def _owner(geom, gprm, g1, g2, b1, b2, d, turn):
    """(side, s) of the contact point's model (module docstring): side 2 (or 1) when p = x -
    s n (x + s n) for x a material point of geom 2's (1's) body, 0 when p is taken as a
    material point of each body."""
    t1, t2 = geom[g1].type, geom[g2].type
    if t2 == SPHERE or t2 == CAPSULE:
        return 2, gprm[g2, G_SIZE] + 0.5 * d
    if t1 == SPHERE or t1 == CAPSULE:
        return 1, gprm[g1, G_SIZE] + 0.5 * d
    if b1 == 0 or turn == 1:
        return 2, 0.5 * d
    if b2 == 0 or turn == 2:
        return 1, 0.5 * d
    return 0, 0.0


@jit
def _sliding_point(geom, gprm, g1, g2, b1, b2, d, fr, f, w, kind, n, dt, E, turn, Aq, Phi):
    """The terms of p's own motion (module docstring): with D_j^b = dp/dq_j - u_j^b(p) for body
    b = 1, 2, Phi_e,j += e . (W2 x D_j^2 - W1 x D_j^1) (W_b the body's angular velocity at w)
    and Aq[k, j] -= (w_k^2 x D_j^2 - w_k^1 x D_j^1) . f / dt. E[1], E[3]: the bodies' point
    and angular columns at p (body 2's, body 1's). With the frame turning with body ``turn``
    (``_turning``), p = x -+ s n moves by -+ s (w_j x n) more."""
    side, s = _owner(geom, gprm, g1, g2, b1, b2, d, turn)
    if side == 0:
        return
    nv = w.shape[0]
    n0, n1, n2 = fr[0], fr[1], fr[2]
    sg = 1.0 if side == 2 else -1.0
    O = E[1] if side == 2 else E[3]  # the owner's columns
    T = E[1] if turn == 2 else E[3]  # the turning body's (used when turn != 0)
    rx, ry, rz = sg * s * n0, sg * s * n1, sg * s * n2  # x - p
    a0 = a1 = a2 = c0 = c1 = c2 = 0.0
    for k in range(nv):
        a0 += E[1, 3, k] * w[k]
        a1 += E[1, 4, k] * w[k]
        a2 += E[1, 5, k] * w[k]
        c0 += E[3, 3, k] * w[k]
        c1 += E[3, 4, k] * w[k]
        c2 += E[3, 5, k] * w[k]
    W = (a0, a1, a2, c0, c1, c2)
    for j in range(nv):
        oj0, oj1, oj2 = O[3, j], O[4, j], O[5, j]
        jn = (n0 * (E[1, 0, j] - E[3, 0, j]) + n1 * (E[1, 1, j] - E[3, 1, j])
              + n2 * (E[1, 2, j] - E[3, 2, j]))  # J_n,j
        # dp_j = u_j^o(x) - sg J_n,j n / 2,  u_j^o(x) = u_j^o(p) + w_j^o x (x - p)
        p0 = O[0, j] + oj1 * rz - oj2 * ry - 0.5 * sg * jn * n0
        p1 = O[1, j] + oj2 * rx - oj0 * rz - 0.5 * sg * jn * n1
        p2 = O[2, j] + oj0 * ry - oj1 * rx - 0.5 * sg * jn * n2
        if turn != 0:  # - w_j^turn x (x - p): the normal turning
            t0, t1, t2 = T[3, j], T[4, j], T[5, j]
            p0 -= t1 * rz - t2 * ry
            p1 -= t2 * rx - t0 * rz
            p2 -= t0 * ry - t1 * rx
        for b in range(2):
            B = E[1] if b == 0 else E[3]
            sign = 1.0 if b == 0 else -1.0
            x0, x1, x2 = p0 - B[0, j], p1 - B[1, j], p2 - B[2, j]  # D_j^b
            v0, v1, v2 = W[3 * b], W[3 * b + 1], W[3 * b + 2]
            y0, y1, y2 = v1 * x2 - v2 * x1, v2 * x0 - v0 * x2, v0 * x1 - v1 * x0  # W_b x D
            for e in range(3):
                r = n + e
                if kind[r] != FIXED:
                    Phi[r, j] += sign * (fr[3 * e] * y0 + fr[3 * e + 1] * y1
                                         + fr[3 * e + 2] * y2)
            # f . (w_k x D) = w_k . (D x f)
            z0, z1, z2 = x1 * f[2] - x2 * f[1], x2 * f[0] - x0 * f[2], x0 * f[1] - x1 * f[0]
            if z0 == 0.0 and z1 == 0.0 and z2 == 0.0:
                continue
            for k in range(nv):
                Aq[k, j] -= sign * (B[3, k] * z0 + B[4, k] * z1 + B[5, k] * z2) / dt
