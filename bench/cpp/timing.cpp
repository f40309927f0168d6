// Pinocchio's own C++ times per evaluation, measured (not estimated from Python calls):
// RNEA, ABA (LOCAL and WORLD conventions), CRBA, forward kinematics and the joint Jacobians
// over a fixed set of random states, one thread; given contacts, also constraintDynamics and
// constraintDynamics followed by computeConstraintDynamicsDerivatives (the derivatives read what
// the forward call left in Data). Built and run by bench/cpp/run.py against the installed
// pinocchio wheel's headers and library; prints one JSON object per line:
//   {"algo": ..., "model": ..., "min": s, "median": s, "rounds": R, "states": N}
// usage: timing MODEL_NAME MODEL_TEXT [STATES] [ROUNDS] [SIZE REFERENCE FRAME...]
// SIZE: 3 (CONTACT_3D) or 6 (CONTACT_6D); REFERENCE: LOCAL or LOCAL_WORLD_ALIGNED; one rigid
// contact with the world per FRAME (zero Baumgarte gains, the frame's placement in its joint).
// MODEL_TEXT: the model as pin.Model.saveToText wrote it (run.py parses the URDF with
// Pinocchio's Python bindings: the wheel ships no urdfdom headers for the C++ parser).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "pinocchio/algorithm/aba.hpp"
#include "pinocchio/algorithm/constrained-dynamics-derivatives.hpp"
#include "pinocchio/algorithm/constrained-dynamics.hpp"
#include "pinocchio/algorithm/crba.hpp"
#include "pinocchio/algorithm/jacobian.hpp"
#include "pinocchio/algorithm/joint-configuration.hpp"
#include "pinocchio/algorithm/kinematics.hpp"
#include "pinocchio/algorithm/rnea.hpp"
#include "pinocchio/serialization.hpp"

namespace pin = pinocchio;
using Clock = std::chrono::steady_clock;
using Contacts = PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(pin::RigidConstraintModel);
using ContactDatas = PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(pin::RigidConstraintData);

// Rounds interleave the algorithms: each round times every algorithm once, so a burst of load
// from another process spreads over all of them instead of one.
int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s NAME MODEL_TEXT [STATES] [ROUNDS] [SIZE REF FRAME...]\n",
                 argv[0]);
    return 2;
  }
  const std::string name = argv[1], path = argv[2];
  const int n = argc > 3 ? std::atoi(argv[3]) : 1000;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 30;
  pin::Model model;
  model.loadFromText(path);
  pin::Data data(model);
  std::srand(0);
  const Eigen::VectorXd lo = -Eigen::VectorXd::Ones(model.nq), hi = Eigen::VectorXd::Ones(model.nq);
  std::vector<Eigen::VectorXd> Q, V, A, T;
  for (int k = 0; k < n; ++k) {
    Q.push_back(pin::randomConfiguration(model, lo, hi));
    V.push_back(Eigen::VectorXd::Random(model.nv));
    A.push_back(Eigen::VectorXd::Random(model.nv));
    T.push_back(pin::rnea(model, data, Q.back(), V.back(), A.back()));
  }
  double sink = 0.0;
  Contacts contacts;
  if (argc > 7) {
    const std::string size = argv[5], ref = argv[6];
    if ((size != "3" && size != "6") || (ref != "LOCAL" && ref != "LOCAL_WORLD_ALIGNED")) {
      std::fprintf(stderr, "SIZE must be 3 or 6, REFERENCE LOCAL or LOCAL_WORLD_ALIGNED\n");
      return 2;
    }
    for (int i = 7; i < argc; ++i) {
      if (!model.existFrame(argv[i])) {
        std::fprintf(stderr, "no frame %s\n", argv[i]);
        return 2;
      }
      const pin::Frame &f = model.frames[model.getFrameId(argv[i])];
      contacts.emplace_back(size == "3" ? pin::CONTACT_3D : pin::CONTACT_6D, model,
                            f.parentJoint, f.placement,
                            ref == "LOCAL" ? pin::LOCAL : pin::LOCAL_WORLD_ALIGNED);
    }
  }
  ContactDatas cdatas;
  for (const auto &c : contacts) cdatas.emplace_back(c);
  pin::initConstraintDynamics(model, data, contacts, cdatas);
  pin::ProximalSettings prox(1e-12, 1e-12, 0.0, 1);  // one direct solve, as the Python bench
  std::vector<std::pair<std::string, std::function<void(int)>>> algos = {
      {"rnea", [&](int k) { sink += pin::rnea(model, data, Q[k], V[k], A[k])[0]; }},
      {"aba", [&](int k) {
         sink += pin::aba(model, data, Q[k], V[k], T[k], pin::Convention::LOCAL)[0];
       }},
      {"aba-world", [&](int k) {
         sink += pin::aba(model, data, Q[k], V[k], T[k], pin::Convention::WORLD)[0];
       }},
      {"crba", [&](int k) { sink += pin::crba(model, data, Q[k])(0, 0); }},
      {"fk", [&](int k) {
         pin::forwardKinematics(model, data, Q[k]);
         sink += data.oMi.back().translation()[0];
       }},
      {"jacobians", [&](int k) { sink += pin::computeJointJacobians(model, data, Q[k])(0, 0); }},
  };
  if (!contacts.empty()) {
    algos.emplace_back("constraint_dynamics", [&](int k) {
      sink += pin::constraintDynamics(model, data, Q[k], V[k], T[k], contacts, cdatas, prox)[0];
    });
    algos.emplace_back("constraint_dynamics_derivatives", [&](int k) {
      pin::constraintDynamics(model, data, Q[k], V[k], T[k], contacts, cdatas, prox);
      pin::computeConstraintDynamicsDerivatives(model, data, contacts, cdatas, prox);
      sink += data.ddq_dq(0, 0) + data.dlambda_dtau(0, 0);
    });
  }
  // Each round times blocks of BLOCK states (tens of microseconds each): on a shared machine a
  // block that no other process interrupted is likely, a whole 1,000-state pass is not, so the
  // min over blocks is the undisturbed time (as pytest-benchmark's short rounds give).
  const int BLOCK = 50;
  std::vector<std::vector<double>> times(algos.size());
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < algos.size(); ++i) {
      for (int b = 0; b < n; b += BLOCK) {
        const int e = std::min(n, b + BLOCK);
        const auto t0 = Clock::now();
        for (int k = b; k < e; ++k) algos[i].second(k);
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        times[i].push_back(s / (e - b));
      }
    }
  }
  for (size_t i = 0; i < algos.size(); ++i) {
    auto &t = times[i];
    std::sort(t.begin(), t.end());
    std::printf("{\"algo\": \"%s\", \"model\": \"%s\", \"min\": %.6e, \"median\": %.6e, "
                "\"rounds\": %d, \"states\": %d}\n",
                algos[i].first.c_str(), name.c_str(), t.front(), t[t.size() / 2], rounds, n);
  }
  std::fprintf(stderr, "checksum %g\n", sink);
  return 0;
}
