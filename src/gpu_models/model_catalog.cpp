#include "sim/gpu_models/model_catalog.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "json_reader.hpp"
#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"

namespace sim::gpu {

using detail::fail;
using detail::Json;
using detail::Quantity;
using detail::Reader;

namespace {

constexpr double kShareTolerance = 1e-6;

Json parse(const std::string& file, std::string_view text) {
  return config::parse_ordered_json_text(text, file);
}

void check_name(const std::string& file, const std::string& path, const std::string& name) {
  static const std::regex kName("[a-z0-9][a-z0-9._-]*");
  if (!std::regex_match(name, kName)) {
    fail(file, path, "name '" + name + "' must match [a-z0-9][a-z0-9._-]* (lower case)");
  }
}

MigProfile read_mig_profile(const Reader& profiles, const std::string& name) {
  const Quantity q = profiles.quantity(name);
  Reader v(*q.value, profiles.file(), q.path);
  MigProfile p;
  p.name = name;
  p.provenance = q.provenance;
  auto num = [&](const char* key) {
    const Json& n = v.raw(key);
    if (!n.is_number())
      fail(v.file(), v.child(key), "expected a number, found " + detail::brief(n));
    return n.get<double>();
  };
  auto integer = [&](const char* key) {
    const Json& n = v.raw(key);
    if (!n.is_number_integer() || n.get<long long>() < 0 || n.get<long long>() > 64) {
      fail(v.file(), v.child(key), "expected an integer in 0..64, found " + detail::brief(n));
    }
    return static_cast<int>(n.get<long long>());
  };
  p.compute_slices = integer("compute_slices");
  p.memory_slices = integer("memory_slices");
  p.memory_gb = num("memory_gb");
  p.compute_fraction = num("compute_fraction");
  p.cache_fraction = num("cache_fraction");
  p.max_count = integer("max_count");
  const Json& starts = v.raw("starts");
  if (!starts.is_array() || starts.empty()) {
    fail(v.file(), v.child("starts"), "expected a non-empty array of start memory slices");
  }
  for (std::size_t i = 0; i < starts.size(); ++i) {
    if (!starts[i].is_number_integer()) {
      fail(v.file(), v.child("starts") + "/" + std::to_string(i), "expected an integer");
    }
    p.starts.push_back(static_cast<int>(starts[i].get<long long>()));
  }
  p.rdf_as = v.opt_string("rdf_as").value_or(name);
  v.finish();
  if (p.compute_slices < 1 || p.memory_slices < 1 || p.max_count < 1) {
    fail(profiles.file(), q.path, "compute_slices, memory_slices and max_count must be >= 1");
  }
  return p;
}

GpuType read_gpu(const Reader& gpus, const std::string& name) {
  Reader r = gpus.object(name);
  GpuType g;
  g.name = name;
  (void)r.opt_string("description");
  const Quantity mem = r.quantity("memory_gb");
  g.memory_gb = mem.positive();
  g.provenance = mem.provenance;
  g.relative_speed = r.quantity("relative_speed").positive();
  if (r.has("mps_interference")) {
    const Quantity k = r.quantity("mps_interference");
    g.mps_interference = k.non_negative();
    g.mps_interference_provenance = k.provenance;
  }
  if (auto mig = r.opt_object("mig_profiles")) {
    g.compute_slices = r.quantity("compute_slices").integer();
    g.memory_slices = r.quantity("memory_slices").integer();
    g.reconfigure_downtime_s = r.quantity("reconfigure_downtime_s").non_negative();
    for (const auto& pname : mig->keys()) {
      MigProfile p = read_mig_profile(*mig, pname);
      for (int s : p.starts) {
        if (s < 0 || s + p.memory_slices > g.memory_slices) {
          fail(r.file(), mig->child(pname),
               "start " + std::to_string(s) + " with " + std::to_string(p.memory_slices) +
                   " memory slices does not fit in " + std::to_string(g.memory_slices));
        }
      }
      g.mig_profiles.push_back(std::move(p));
    }
    mig->finish();
  }
  r.finish();
  return g;
}

ExpCoefficients to_exp(const std::vector<double>& row, const Quantity& q, std::size_t i) {
  if (!(row[1] > 0.0)) q.fail_here("row " + std::to_string(i) + ": beta must be > 0");
  return {row[0], row[1], row[2]};
}

GpuProfile read_gpu_profile(const Reader& r,
                            const std::map<std::string, GpuType, std::less<>>& gpus) {
  GpuProfile g;
  g.reference_gpu = r.string("reference_gpu");
  auto it = gpus.find(g.reference_gpu);
  if (it == gpus.end()) {
    std::string known;
    for (const auto& [n, t] : gpus)
      known += (known.empty() ? "" : ", ") + n;
    fail(r.file(), r.child("reference_gpu"),
         "unknown GPU type '" + g.reference_gpu + "' (known: " + known + ")");
  }
  g.reference_speed = it->second.relative_speed;
  if (auto b = r.opt_quantity("batch_size")) {
    const int batch = b->integer();
    if (batch < 1) b->fail_here("batch_size must be >= 1");
    g.reference_batch = Sourced<int>{batch, b->provenance};
  }
  const bool has_solo = r.has("solo_ms");
  const bool has_xi = r.has("xi1_s");
  if (has_solo == has_xi) {
    fail(r.file(), r.path(),
         "give either solo_ms + batch_size + intercept_fraction or xi1_s + xi2_s");
  }
  if (has_solo) {
    // L(b) = L_ref * (f + (1 - f) * b / b_ref): eq. 2 with xi2 = f * L_ref.
    const Quantity solo = r.quantity("solo_ms");
    const Quantity f = r.quantity("intercept_fraction");
    if (!g.reference_batch) fail(r.file(), r.child("batch_size"), "required with solo_ms");
    const double l_ref = solo.positive() / 1000.0;
    const double frac = f.non_negative();
    if (frac >= 1.0) f.fail_here("intercept_fraction must be < 1");
    Provenance p{solo.provenance.source,
                 "derived from solo_ms and intercept_fraction (" + f.provenance.describe() + ")" +
                     (solo.provenance.assumption.empty() ? "" : "; " + solo.provenance.assumption)};
    g.xi2_s = {frac * l_ref, p};
    g.xi1_s = {(1.0 - frac) * l_ref / g.reference_batch->value, p};
  } else {
    g.xi1_s = r.quantity("xi1_s").sourced();
    g.xi2_s = r.quantity("xi2_s").sourced();
  }
  if (auto m = r.opt_quantity("memory_gb"))
    g.memory_gb = Sourced<double>{m->positive(), m->provenance};
  if (auto f = r.opt_quantity("fbr")) g.fbr = Sourced<double>{f->non_negative(), f->provenance};
  if (auto c = r.opt_quantity("interference_class")) {
    g.interference_class = c->text();
    if (g.interference_class != "LI" && g.interference_class != "HI" &&
        g.interference_class != "VHI") {
      c->fail_here("expected \"LI\", \"HI\" or \"VHI\", found \"" + g.interference_class + "\"");
    }
  }
  if (auto rdf = r.opt_quantity("rdf")) {
    if (!rdf->value->is_object()) rdf->fail_here("expected an object {profile: rdf}");
    for (auto e = rdf->value->begin(); e != rdf->value->end(); ++e) {
      if (!e.value().is_number() || !(e.value().get<double>() >= 1.0)) {
        fail(r.file(), rdf->path + "/" + e.key(),
             "expected an RDF >= 1 (a slice is never faster than the whole GPU), found " +
                 detail::brief(e.value()));
      }
      g.rdf[e.key()] = e.value().get<double>();
    }
    g.rdf_provenance = rdf->provenance;
  }
  r.finish();
  return g;
}

CpuProfile read_cpu_profile(const Reader& r) {
  CpuProfile c;
  const Quantity avg = r.quantity("avg");
  const Quantity max = r.quantity("max");
  auto a = avg.rows(3);
  auto m = max.rows(3);
  if (a.empty() || a.size() != m.size()) {
    fail(r.file(), r.path(), "avg and max need the same non-zero number of rows (batch 1..B)");
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    c.avg.push_back(to_exp(a[i], avg, i));
    c.max.push_back(to_exp(m[i], max, i));
  }
  c.provenance = avg.provenance;
  if (auto mem = r.opt_quantity("memory_mb")) {
    auto v = mem->numbers();
    if (v.size() != 2) mem->fail_here("expected [a_m, b_m]");
    c.memory_mb = Sourced<std::vector<double>>{v, mem->provenance};
  }
  r.finish();
  return c;
}

CgpuProfile read_cgpu_profile(const Reader& r) {
  CgpuProfile c;
  c.tau_s = {r.quantity("tau_s").positive(), r.quantity("tau_s").provenance};
  c.m_max_gb = {r.quantity("m_max_gb").positive(), r.quantity("m_max_gb").provenance};
  c.gpu_fraction = r.quantity("gpu_fraction").sourced();
  c.cpu_fraction = r.quantity("cpu_fraction").sourced();
  if (c.gpu_fraction.value < 0 || c.cpu_fraction.value < 0 ||
      c.gpu_fraction.value + c.cpu_fraction.value <= 0) {
    fail(r.file(), r.path(), "gpu_fraction and cpu_fraction must be >= 0 and not both 0");
  }
  const Quantity t = r.quantity("min_memory_thresholds");
  c.min_memory_thresholds = {t.numbers(), t.provenance};
  if (auto f = r.opt_quantity("function_memory_mb"))
    c.function_memory_mb = Sourced<double>{f->positive(), f->provenance};
  r.finish();
  return c;
}

ColdStartProfile read_cold_start(const Reader& r) {
  ColdStartProfile c;
  c.size_mb = {r.quantity("size_mb").positive(), r.quantity("size_mb").provenance};
  c.download_s = {r.quantity("download_s").non_negative(), r.quantity("download_s").provenance};
  c.download_bandwidth_mbps = {r.quantity("download_bandwidth_mbps").positive(),
                               r.quantity("download_bandwidth_mbps").provenance};
  c.load_s = {r.quantity("load_s").non_negative(), r.quantity("load_s").provenance};
  c.copy_s = {r.quantity("copy_s").non_negative(), r.quantity("copy_s").provenance};
  if (auto layers = r.opt_quantity("layers")) {
    Reader v(*layers->value, r.file(), layers->path);
    auto vec = [&](const char* key) {
      Quantity q{&v.raw(key), layers->provenance, "", v.child(key), r.file()};
      auto x = q.numbers();
      for (double e : x) {
        if (e < 0) q.fail_here("values must be >= 0");
      }
      return x;
    };
    const auto cold = vec("cold_start_ms");
    const auto exec = vec("exec_ms");
    const auto out = vec("output_kb");
    v.finish();
    if (cold.empty() || cold.size() != exec.size() || cold.size() != out.size()) {
      layers->fail_here("cold_start_ms, exec_ms and output_kb need the same non-zero length");
    }
    for (std::size_t i = 0; i < cold.size(); ++i) {
      c.layers.push_back({cold[i] / 1000.0, exec[i] / 1000.0, out[i] * 1000.0});
    }
    c.layers_provenance = layers->provenance;
  }
  r.finish();
  return c;
}

// Operators are read in two passes because a table may be derived from another model's.
struct PendingDerivation {
  std::string model;
  std::string base;
  double scale = 1.0;
  std::string path;
  Provenance provenance;
};

OperatorModel read_operators(const Reader& r, std::optional<PendingDerivation>& derive) {
  OperatorModel o;
  o.infeasible_ms = r.quantity("infeasible_at_or_above_ms").positive();
  if (r.has("latency_table") == r.has("derived_from")) {
    fail(r.file(), r.path(), "give exactly one of latency_table and derived_from");
  }
  if (auto t = r.opt_quantity("latency_table")) {
    const auto rows = t->rows(4);
    if (rows.empty()) t->fail_here("latency table is empty");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& row = rows[i];
      const int threads = static_cast<int>(row[0]);
      const int gpu = static_cast<int>(row[1]);
      const int batch = static_cast<int>(row[2]);
      if (threads != row[0] || gpu != row[1] || batch != row[2] || threads < 0 || gpu < 0 ||
          gpu > 100 || batch < 1 || !(row[3] > 0)) {
        fail(r.file(), t->path + "/" + std::to_string(i),
             "expected [threads >= 0, gpu_percent 0..100, batch >= 1, latency_ms > 0]");
      }
      if (!o.table_ms.emplace(std::make_tuple(threads, gpu, batch), row[3]).second) {
        fail(r.file(), t->path + "/" + std::to_string(i), "duplicate configuration");
      }
    }
    o.table_provenance = t->provenance;
  } else {
    Reader d = r.object("derived_from");
    PendingDerivation p;
    p.base = d.string("model");
    const Quantity s = d.quantity("scale");
    p.scale = s.positive();
    p.provenance = s.provenance;
    p.path = d.path();
    d.finish();
    derive = p;
  }
  const Quantity dag = r.quantity("dag");
  if (!dag.value->is_array() || dag.value->empty()) dag.fail_here("expected a non-empty array");
  for (std::size_t i = 0; i < dag.value->size(); ++i) {
    Reader op((*dag.value)[i], r.file(), dag.path + "/" + std::to_string(i));
    const std::string name = op.string("name");
    std::vector<std::string> after;
    if (op.has("after")) {
      const Json& a = op.raw("after");
      if (!a.is_array()) fail(r.file(), op.child("after"), "expected an array of operator names");
      for (const auto& e : a) {
        if (!e.is_string()) fail(r.file(), op.child("after"), "expected operator names");
        after.push_back(e.get<std::string>());
      }
    }
    const Json& share = op.raw("share");
    if (!share.is_number() || share.get<double>() < 0 || share.get<double>() > 1) {
      fail(r.file(), op.child("share"),
           "expected a share in [0, 1], found " + detail::brief(share));
    }
    op.finish();
    try {
      o.dag.add(name, after);
    } catch (const std::invalid_argument& e) {
      fail(r.file(), op.path(), e.what());
    }
    o.shares.push_back(share.get<double>());
  }
  o.shares_provenance = dag.provenance;
  const double path = o.dag.critical_path(o.shares);
  if (std::fabs(path - 1.0) > kShareTolerance) {
    std::ostringstream s;
    s << "operator shares along the critical path sum to " << path
      << ", expected 1 (so that combined profiling reproduces the measured table)";
    dag.fail_here(s.str());
  }
  o.prediction_offset = r.quantity("prediction_offset").sourced();
  r.finish();
  return o;
}

}  // namespace

void ModelCatalog::add_gpu_file(const std::string& file, std::string_view text) {
  const Json j = parse(file, text);
  Reader top(j, file, "");
  (void)top.opt_string("description");
  Reader gpus = top.object("gpus");
  for (const auto& name : gpus.keys()) {
    if (gpus_.count(name)) fail(file, gpus.child(name), "GPU type defined twice");
    gpus_.emplace(name, read_gpu(gpus, name));
  }
  gpus.finish();
  top.finish();
}

void ModelCatalog::add_model_file(const std::string& file, std::string_view text) {
  const Json j = parse(file, text);
  Reader top(j, file, "");
  const std::string family = top.string("family");
  check_name(file, "/family", family);
  (void)top.opt_string("description");
  Reader models = top.object("models");
  std::vector<PendingDerivation> derivations;
  std::map<std::string, ModelProfile, std::less<>> parsed;
  for (const auto& key : models.keys()) {
    check_name(file, models.child(key), key);
    Reader m = models.object(key);
    ModelProfile p;
    p.name = family + "/" + key;
    p.family = family;
    p.source_file = file;
    p.display_name = m.opt_string("display_name").value_or(key);
    p.domain = m.opt_string("domain").value_or("");
    if (auto q = m.opt_quantity("gflops")) p.gflops = Sourced<double>{q->positive(), q->provenance};
    if (auto q = m.opt_quantity("weights_mb")) {
      p.weights_mb = Sourced<double>{q->positive(), q->provenance};
    }
    if (auto g = m.opt_object("gpu")) p.gpu = read_gpu_profile(*g, gpus_);
    if (auto c = m.opt_object("cpu")) p.cpu = read_cpu_profile(*c);
    if (auto c = m.opt_object("cgpu")) {
      p.cgpu = read_cgpu_profile(*c);
      if (!p.gpu) fail(file, m.child("cgpu"), "a cgpu profile needs the model's gpu profile (L0)");
    }
    if (auto c = m.opt_object("cold_start")) p.cold_start = read_cold_start(*c);
    if (auto o = m.opt_object("operators")) {
      std::optional<PendingDerivation> d;
      p.operators = read_operators(*o, d);
      if (d) {
        d->model = key;
        derivations.push_back(*d);
      }
    }
    m.finish();
    if (!p.gpu && !p.cpu && !p.operators && !p.cold_start) {
      fail(file, models.child(key),
           "a model needs at least one of gpu, cpu, operators, cold_start");
    }
    if (models_.count(p.name)) fail(file, models.child(key), "model " + p.name + " defined twice");
    parsed.emplace(key, std::move(p));
  }
  models.finish();
  top.finish();
  for (const auto& d : derivations) {
    auto base = parsed.find(d.base);
    if (base == parsed.end() || !base->second.operators ||
        base->second.operators->table_ms.empty()) {
      fail(file, d.path + "/model",
           "derived_from must name a model of this file with its own latency_table, found '" +
               d.base + "'");
    }
    auto& target = *parsed.at(d.model).operators;
    const auto& src = *base->second.operators;
    for (const auto& [k, v] : src.table_ms) {
      // Infeasible configurations stay infeasible whatever the scale.
      target.table_ms[k] = v >= src.infeasible_ms ? target.infeasible_ms : v * d.scale;
    }
    target.table_provenance = {src.table_provenance.source,
                               "latency table of " + family + "/" + d.base + " scaled by " +
                                   std::to_string(d.scale) + ": " + d.provenance.describe()};
  }
  for (auto& [k, p] : parsed)
    models_.emplace(p.name, std::move(p));
}

ModelCatalog ModelCatalog::load(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) {
    throw std::runtime_error("model catalog directory " + dir.string() + " does not exist");
  }
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error(p.string() + ": cannot open");
    std::ostringstream s;
    s << in.rdbuf();
    const std::string text = s.str();
    if (text.size() > 64u * 1024u * 1024u)
      throw std::runtime_error(p.string() + ": file too large");
    return text;
  };
  ModelCatalog c;
  const fs::path gpu_file = dir / "gpus.json";
  if (!fs::exists(gpu_file)) throw std::runtime_error(gpu_file.string() + ": missing (GPU types)");
  c.add_gpu_file(gpu_file.string(), read(gpu_file));
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".json" &&
        e.path().filename() != "gpus.json") {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    c.add_model_file(f.string(), read(f));
  return c;
}

std::vector<std::string> ModelCatalog::names() const {
  std::vector<std::string> out;
  for (const auto& [n, m] : models_)
    out.push_back(n);
  return out;
}

const ModelProfile* ModelCatalog::find(std::string_view name) const {
  auto it = models_.find(name);
  return it == models_.end() ? nullptr : &it->second;
}

const ModelProfile& ModelCatalog::model(std::string_view name) const {
  if (const auto* m = find(name)) return *m;
  // A typo of a full name ("protean/resnet50") gets the nearest full name, which keeps its
  // family; a bare model name ("resnet-50") gets every family's model of that name.
  const std::string q(name);
  std::string hint;
  if (q.find('/') != std::string::npos) hint = config::nearest(q, names());
  if (hint.empty()) {
    const std::string tail = q.substr(q.find('/') == std::string::npos ? 0 : q.find('/') + 1);
    for (const auto& [n, m] : models_) {
      if (!tail.empty() && n.find(tail) != std::string::npos)
        hint += (hint.empty() ? "" : ", ") + n;
    }
  }
  throw std::invalid_argument(
      "unknown model '" + q + "'" +
      (hint.empty() ? " (see `dcsim list models`)" : " (did you mean: " + hint + "?)"));
}

std::vector<std::string> ModelCatalog::gpu_names() const {
  std::vector<std::string> out;
  for (const auto& [n, g] : gpus_)
    out.push_back(n);
  return out;
}

const GpuType& ModelCatalog::gpu(std::string_view name) const {
  auto it = gpus_.find(name);
  if (it != gpus_.end()) return it->second;
  std::string known;
  for (const auto& [n, g] : gpus_)
    known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown GPU type '" + std::string(name) + "' (known: " + known +
                              ")");
}

}  // namespace sim::gpu
