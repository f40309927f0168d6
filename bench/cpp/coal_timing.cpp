// coal's narrow phase timed in C++: the pair cases of bench/test_collision.py, one per line on
// stdin (bench/cpp/coal_run.py writes them), each timed as coal.collide with contacts on,
// without Python's binding in between.
//
// A line: NAME CALLS ROUNDS SHAPE1 R1 p1 SHAPE2 R2 p2, where SHAPE is TYPE K a_1 .. a_K in
// coal's own constructor arguments (plane: normal, offset; sphere: r; capsule and cylinder:
// r, full length; ellipsoid: semi-axes; box: full edges; convex: the vertices, whose convex
// hull coal builds with qhull), R the rotation (9 numbers, row-major), p the translation.
// Output, one JSON object per line: the pair, the best round's time per call [s], the
// contacts and the first one's penetration depth (checked against Python's coal by the runner).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "coal/collision.h"
#include "coal/shape/geometric_shapes.h"

namespace {

std::shared_ptr<coal::CollisionGeometry> shape(std::istream &in) {
  std::string type;
  int k = 0;
  in >> type >> k;
  std::vector<double> a(k);
  for (double &x : a) in >> x;
  if (type == "plane") return std::make_shared<coal::Halfspace>(coal::Vec3s(a[0], a[1], a[2]), a[3]);
  if (type == "sphere") return std::make_shared<coal::Sphere>(a[0]);
  if (type == "capsule") return std::make_shared<coal::Capsule>(a[0], a[1]);
  if (type == "cylinder") return std::make_shared<coal::Cylinder>(a[0], a[1]);
  if (type == "ellipsoid") return std::make_shared<coal::Ellipsoid>(a[0], a[1], a[2]);
  if (type == "box") return std::make_shared<coal::Box>(a[0], a[1], a[2]);
  if (type == "convex") {
    auto pts = std::make_shared<std::vector<coal::Vec3s>>();
    for (int i = 0; i + 2 < k; i += 3) pts->emplace_back(a[i], a[i + 1], a[i + 2]);
    return std::shared_ptr<coal::CollisionGeometry>(coal::ConvexBase::convexHull(
        pts, static_cast<unsigned int>(pts->size()), false, nullptr));
  }
  std::fprintf(stderr, "unknown shape %s\n", type.c_str());
  std::exit(2);
}

coal::Transform3s placement(std::istream &in) {
  coal::Matrix3s R;
  coal::Vec3s p;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) in >> R(i, j);
  in >> p[0] >> p[1] >> p[2];
  coal::Transform3s T;
  T.setRotation(R);
  T.setTranslation(p);
  return T;
}

}  // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::istringstream in(line);
    std::string name;
    int calls = 0, rounds = 0;
    in >> name >> calls >> rounds;
    auto g1 = shape(in);
    coal::Transform3s T1 = placement(in);
    auto g2 = shape(in);
    coal::Transform3s T2 = placement(in);
    coal::CollisionRequest req(coal::CONTACT, 1);
    coal::CollisionResult res;
    double best = 1e300;
    for (int r = 0; r < rounds; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) {
        res.clear();
        coal::collide(g1.get(), T1, g2.get(), T2, req, res);
      }
      std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
      best = std::min(best, dt.count() / calls);
    }
    const double depth = res.numContacts() ? res.getContact(0).penetration_depth : 0.0;
    std::printf("{\"pair\": \"%s\", \"seconds\": %.6e, \"contacts\": %zu, \"depth\": %.12e}\n",
                name.c_str(), best, res.numContacts(), depth);
    std::fflush(stdout);
  }
  return 0;
}
