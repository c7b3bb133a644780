#include "sim/sweep/statistics.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace sim::sweep {

double student_t_975(std::size_t df) {
  if (df == 0) throw std::invalid_argument("student_t_975: degrees of freedom must be >= 1");
  // t(0.975, df) for df = 1..30 (standard tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
  static constexpr std::array<double, 30> kTable = {
      12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185,
      2.36462425, 2.30600414, 2.26215716, 2.22813885, 2.20098516, 2.17881283,
      2.16036866, 2.14478669, 2.13144955, 2.11990530, 2.10981558, 2.10092204,
      2.09302405, 2.08596345, 2.07961384, 2.07387307, 2.06865761, 2.06389856,
      2.05953855, 2.05552944, 2.05183052, 2.04840714, 2.04522964, 2.04227246};
  if (df <= kTable.size()) return kTable[df - 1];
  // Cornish-Fisher expansion of t in powers of 1/df (Abramowitz & Stegun 26.7.5).
  const double z = 1.959963984540054;
  const double n = static_cast<double>(df);
  const double z2 = z * z;
  const double g1 = (z2 + 1.0) * z / 4.0;
  const double g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
  const double g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
  const double g4 =
      ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
  return z + g1 / n + g2 / (n * n) + g3 / (n * n * n) + g4 / (n * n * n * n);
}

Statistics describe(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("describe: empty sample");
  Statistics s;
  s.n = values.size();
  // Shifted by the first value: equal replications give exactly that value and sd 0, and
  // large offsets (timestamps, byte counts) lose no precision to cancellation.
  const double shift = values.front();
  double sum = 0.0;
  for (const double v : values)
    sum += v - shift;
  const double offset = sum / static_cast<double>(s.n);
  s.mean = shift + offset;
  if (s.n >= 2) {
    double squares = 0.0;
    for (const double v : values)
      squares += (v - shift - offset) * (v - shift - offset);
    const double sd = std::sqrt(squares / static_cast<double>(s.n - 1));
    const double half = student_t_975(s.n - 1) * sd / std::sqrt(static_cast<double>(s.n));
    s.sd = sd;
    s.ci_low = s.mean - half;
    s.ci_high = s.mean + half;
  }
  return s;
}

}  // namespace sim::sweep
