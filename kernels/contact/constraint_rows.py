"""The constraint rows of one time step: contacts, joint limits and dry joint friction.

Each row r is a direction J_r in velocity space (the rows of W^T, W the generalized force
directions of the constraints: Kindr cheat sheet, "Equations of motion with contacts and
impulses", M du - h dt = W P) and the velocity c_r it has after the free step, minus the
velocity b_r it must reach:
- contact of a sphere (centre x, radius r) with a half-space {n.x >= d}: gap
  phi = n.x - d - r, contact point p = x - r n on the body; three rows n^T J_p, t1^T J_p,
  t2^T J_p with J_p the point's translational Jacobian: column k of a dof on the body's
  support is J_k,v + J_k,w x p (Traversaro & Saccon 2019, sec. 8: the WORLD Jacobian applied
  at p). The normal row's target b keeps the gap closed after the step:
    phi > 0:  u_n >= -phi / dt           (speculative: a fast body cannot tunnel)
    phi <= 0: u_n >= -erp phi / dt       (Baumgarte-like: a penetration is removed)
  and, when the contact closes within the step (phi + dt u_n < REST_GAP) at an approach
  speed above the bounce speed, u_n >= -e u_n^- (Newton's restitution on the velocity before
  the step; for e > 0 only, so that e = 0 lands exactly on the surface, and the rebound
  starts within one step of the touch-down);
- joint limit (vector-space coordinates, one per dof): the same unilateral target on
  phi = q - q_lower (row e_k) or phi = q_upper - q (row -e_k), a rigid row (RIGID: no
  compliance, delassus.py), so that q+ = q + dt v+ stays within the limit to round-off;
- dry friction of dof k: row e_k, target 0, |lambda| <= friction_k dt.
A contact or limit enters when its gap predicted by the free velocity is below the margin:
phi + dt min(u_n, 0) < margin. A limit also enters when the velocity the step solved without
it would bring it there (``reached_limits``; the step is then solved again with it): other
rows' percussions move every joint M couples to them, so a joint its own free velocity kept
clear can be pushed through its limit (a UR5 falling under gravity at dt = 0.5 s ended 300 rad
past a limit of 2 pi before this rule). The target b = -phi / dt then keeps the coordinate
within its limit at the end of the step, whatever dt.
On a soft half-space (MuJoCo's solref/solimp, softness.py) a contact enters when it
penetrates at the step's start (phi < 0, MuJoCo's rule with zero geom margin and gap: no
speculative rows, no restitution), its normal target is J_n v + dt a_ref, its tangent
targets (1 - dt B) J_t v, its normal row carries the compliance R = (1 - d) / d w, w the
sphere's inverse weight (MuJoCo's approximation of G_nn, the same for all three rows), and
its tangent rows R over MuJoCo's impratio (the scene's O_IMPRATIO).
"""

from .._jit import jit
from ..joints.codes import LIE_GROUP, VECTOR
from ..layout import (H_MU, H_N, H_OFFSET, H_RESTITUTION, H_T1, H_T2, O_BOUNCE, O_DT, O_ERP,
                      O_IMPRATIO, O_LIMITS, O_MARGIN, OJ, OM, P_DAMPING, P_FRICTION, P_Q_LOWER,
                      P_Q_UPPER)
from .softness import is_soft, soft_targets

REST_GAP = 1e-9  # a gap this small counts as touching, for restitution [m]
RIGID = -1.0  # a row's compliance code (delassus.py's soft) for no compliance: joint limits


@jit
def _target(phi, dt, erp):
    return -phi / dt if phi > 0.0 else -erp * phi / dt


@jit
def sphere_rows(jnt, sph, hsp, s, e, ws, v, vf, J, m):
    """Rows m, m+1, m+2 of J for sphere s on half-space e; returns (phi, point, the point's
    velocity under v, under vf), the velocities summed over the point's chain of dofs, where
    J's rows are non-zero."""
    sp = sph[s]
    w = ws[sp.joint]
    c = sp.p
    x0 = w[OM] * c[0] + w[OM + 1] * c[1] + w[OM + 2] * c[2] + w[OM + 9]
    x1 = w[OM + 3] * c[0] + w[OM + 4] * c[1] + w[OM + 5] * c[2] + w[OM + 10]
    x2 = w[OM + 6] * c[0] + w[OM + 7] * c[1] + w[OM + 8] * c[2] + w[OM + 11]
    h = hsp[e]
    n0, n1, n2 = h[H_N], h[H_N + 1], h[H_N + 2]
    phi = n0 * x0 + n1 * x1 + n2 * x2 - h[H_OFFSET] - sp.radius
    p0, p1, p2 = x0 - sp.radius * n0, x1 - sp.radius * n1, x2 - sp.radius * n2
    # CRBA left the world Jacobian columns about joint 1's origin (world_origin.py)
    r0, r1, r2 = p0 - ws[1, OM + 9], p1 - ws[1, OM + 10], p2 - ws[1, OM + 11]
    for k in range(J.shape[1]):
        J[m, k] = 0.0
        J[m + 1, k] = 0.0
        J[m + 2, k] = 0.0
    u0 = u1 = u2 = f0 = f1 = f2 = 0.0
    i = sp.joint
    while i > 0:
        wi = ws[i]
        iv = jnt[i].idx_v
        for d in range(jnt[i].nv):
            o = OJ + 6 * d
            a0 = wi[o] + wi[o + 4] * r2 - wi[o + 5] * r1
            a1 = wi[o + 1] + wi[o + 5] * r0 - wi[o + 3] * r2
            a2 = wi[o + 2] + wi[o + 3] * r1 - wi[o + 4] * r0
            J[m, iv + d] = n0 * a0 + n1 * a1 + n2 * a2
            J[m + 1, iv + d] = h[H_T1] * a0 + h[H_T1 + 1] * a1 + h[H_T1 + 2] * a2
            J[m + 2, iv + d] = h[H_T2] * a0 + h[H_T2 + 1] * a1 + h[H_T2 + 2] * a2
            x, y = v[iv + d], vf[iv + d]
            u0, u1, u2 = u0 + a0 * x, u1 + a1 * x, u2 + a2 * x
            f0, f1, f2 = f0 + a0 * y, f1 + a1 * y, f2 + a2 * y
        i = jnt[i].parent
    return phi, p0, p1, p2, u0, u1, u2, f0, f1, f2


@jit
def along(h, o, x0, x1, x2):
    """h[o:o+3] . x"""
    return h[o] * x0 + h[o + 1] * x1 + h[o + 2] * x2


@jit
def contact_rows(jnt, sph, hsp, opt, ws, v, vf, J, c, mu, slot, pair, point, soft):
    """Contact rows (first in the list): J, c, mu per contact, the warm-start slot of each
    row, the (sphere, half-space) pair and point of each contact, and soft[r] the compliance
    R_rr of each row (0 on a rigid half-space). Returns the number of
    contacts. Needs the placements and world Jacobian columns of CRBA in ws."""
    dt, erp, margin, bounce = opt[O_DT], opt[O_ERP], opt[O_MARGIN], opt[O_BOUNCE]
    nh = hsp.shape[0]
    nc = 0
    for s in range(sph.shape[0]):
        for e in range(nh):
            m = 3 * nc
            phi, p0, p1, p2, u0, u1, u2, f0, f1, f2 = sphere_rows(jnt, sph, hsp, s, e, ws, v, vf,
                                                                J, m)
            h = hsp[e]
            un = along(h, H_N, f0, f1, f2)
            un0 = along(h, H_N, u0, u1, u2)
            factor, ratio = 0.0, 1.0
            if is_soft(h):
                if not phi < 0.0:
                    continue
                factor, b, keep = soft_targets(h, phi, un0, dt)  # keep: 1 - dt B
                factor *= sph[s].invweight
                ratio = max(opt[O_IMPRATIO], 1e-15)  # (an opt of one's own may hold 0)
                c[m + 1] = along(h, H_T1, f0, f1, f2) - keep * along(h, H_T1, u0, u1, u2)
                c[m + 2] = along(h, H_T2, f0, f1, f2) - keep * along(h, H_T2, u0, u1, u2)
            else:
                if not phi + dt * min(un, 0.0) < margin:
                    continue
                b = _target(phi, dt, erp)
                rest = h[H_RESTITUTION]
                if rest > 0.0 and un0 < -bounce and phi + dt * un < REST_GAP:
                    b = max(b, -rest * un0)  # the impact falls within this step
                c[m + 1] = along(h, H_T1, f0, f1, f2)
                c[m + 2] = along(h, H_T2, f0, f1, f2)
            c[m] = un - b
            mu[nc] = h[H_MU]
            p = s * nh + e
            pair[nc] = p
            point[nc, 0], point[nc, 1], point[nc, 2] = p0, p1, p2
            for k in range(3):
                slot[m + k] = 3 * p + k
                soft[m + k] = factor if k == 0 else factor / ratio
            nc += 1
    return nc


@jit
def _unit_row(J, m, k, sign):
    for j in range(J.shape[1]):
        J[m, j] = 0.0
    J[m, k] = sign


@jit
def _limited(jr, opt):
    """Whether joint jr's coordinates can carry limit rows: limits on, and coordinates that
    are the dofs themselves (a vector-space joint with nq = nv)."""
    return opt[O_LIMITS] > 0.0 and LIE_GROUP[jr.type] == VECTOR and jr.nq == jr.nv


@jit
def _bounded(bound):
    return abs(bound) < 1e300  # +-inf: unbounded


@jit
def rows_possible(jnt, PRM, opt, npair):
    """Whether a step of any of the robots PRM (N, njoints, NP) can meet a constraint row
    (a contact pair, a bounded limited coordinate, dry friction) or needs the factorized
    step for damping; otherwise time_step may take the ABA step (O_FREE)."""
    if npair > 0:
        return True
    for s in range(PRM.shape[0]):
        for i in range(1, jnt.shape[0]):
            jr = jnt[i]
            pr = PRM[s, i]
            for d in range(jr.nv):
                if pr[P_FRICTION + d] > 0.0 or pr[P_DAMPING + d] > 0.0:
                    return True
                if _limited(jr, opt) and (_bounded(pr[P_Q_LOWER + d])
                                          or _bounded(pr[P_Q_UPPER + d])):
                    return True
    return False


@jit
def _listed(slot, m0, m, s):
    """Whether warm-start slot s is among slot[m0:m]."""
    for r in range(m0, m):
        if slot[r] == s:
            return True
    return False


@jit
def reached_limits(jnt, prm, opt, q, vf, vn, m0, m, nslot, J, c, lo, hi, slot):
    """Limit rows that the step's solved velocity vn reaches although vf did not: appended
    from row m on (c from vf, as joint_rows writes them), each limit once (its slot is not
    among rows m0..m-1, the joint rows). The percussions of other rows (a contact, another
    joint's limit, through M's coupling) move a joint that its own free velocity kept clear:
    a limit enters when its gap at the end of the step, phi + dt min(vn_k, 0), is below the
    margin under either velocity. Returns the new row count (m: none)."""
    dt, erp, margin = opt[O_DT], opt[O_ERP], opt[O_MARGIN]
    nv = vf.shape[0]
    n = m
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        if not _limited(jr, opt):
            continue
        pr = prm[i]
        for d in range(jr.nv):
            k = jr.idx_v + d
            x = q[jr.idx_q + d]
            for side in range(2):
                bound = pr[P_Q_LOWER + d] if side == 0 else pr[P_Q_UPPER + d]
                if not _bounded(bound):
                    continue
                sign = 1.0 if side == 0 else -1.0
                phi = sign * (x - bound)
                if phi + dt * min(sign * vn[k], 0.0) < margin and \
                        not _listed(slot, m0, m, nslot + side * nv + k):
                    _unit_row(J, n, k, sign)
                    c[n] = sign * vf[k] - _target(phi, dt, erp)
                    lo[n], hi[n] = 0.0, 1e300
                    slot[n] = nslot + side * nv + k
                    n += 1
    return n


@jit
def joint_rows(jnt, prm, opt, q, vf, m, nslot, J, c, lo, hi, slot):
    """Limit and dry-friction rows from row m on; warm-start slots from nslot on (limits
    lower nslot + k, upper nslot + nv + k, friction nslot + 2 nv + k for dof k). Returns
    the new row count."""
    dt, erp, margin = opt[O_DT], opt[O_ERP], opt[O_MARGIN]
    nv = vf.shape[0]
    for i in range(1, jnt.shape[0]):
        jr = jnt[i]
        pr = prm[i]
        if _limited(jr, opt):
            for d in range(jr.nv):
                k = jr.idx_v + d
                x = q[jr.idx_q + d]
                for side in range(2):
                    bound = pr[P_Q_LOWER + d] if side == 0 else pr[P_Q_UPPER + d]
                    if not _bounded(bound):
                        continue
                    sign = 1.0 if side == 0 else -1.0
                    phi = sign * (x - bound)
                    un = sign * vf[k]
                    if phi + dt * min(un, 0.0) < margin:
                        _unit_row(J, m, k, sign)
                        c[m] = un - _target(phi, dt, erp)
                        lo[m], hi[m] = 0.0, 1e300
                        slot[m] = nslot + side * nv + k
                        m += 1
        for d in range(jr.nv):
            f = pr[P_FRICTION + d]
            if f > 0.0:
                k = jr.idx_v + d
                _unit_row(J, m, k, 1.0)
                c[m] = vf[k]
                lo[m], hi[m] = -f * dt, f * dt
                slot[m] = nslot + 2 * nv + k
                m += 1
    return m
