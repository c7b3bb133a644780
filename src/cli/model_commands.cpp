// dcsim model-info / dcsim fit: the model catalog (data/models) and profile calibration.

#include "commands.hpp"
#include "environment.hpp"
#include "options.hpp"
#include "sim/gpu_models/fit.hpp"
#include "sim/gpu_models/interference_fit.hpp"
#include "sim/gpu_models/model_catalog.hpp"
#include "sim/gpu_models/sharing_table.hpp"

namespace sim::cli {

gpu::ModelCatalog load_catalog() {
  return gpu::ModelCatalog::load(data_dir() / "models");
}

int model_info_command(const Args& args, std::ostream& out, std::ostream& /*err*/) {
  if (wants_help(args)) {
    out << "usage: dcsim model-info NAME\n       dcsim model-info --sharing FAMILY [GPU]\n\nPrints "
           "a model's profile (with the source of every "
           "number) and its latency table across devices, MIG slices and batch sizes. Names are "
           "family/model, e.g. protean/resnet-50; `dcsim list models` shows them all.\n"
           "The catalog is read from $DCSIM_DATA_DIR/models (default: the source tree's "
           "data/models).\n"
           "--sharing prints, for every model of FAMILY (e.g. protean) at its reference batch, "
           "latency and throughput exclusive, with 2/4/6 MPS co-runners and on each MIG slice "
           "of GPU (default A100-40GB), as a Markdown table (docs/gpu-models.md).\n";
    return kExitOk;
  }
  if (!args.empty() && args[0] == "--sharing") {
    if (args.size() < 2 || args.size() > 3) throw UsageError("expected --sharing FAMILY [GPU]");
    gpu::render_sharing_table(load_catalog(), args[1], args.size() == 3 ? args[2] : "A100-40GB",
                              out);
    return kExitOk;
  }
  if (args.size() != 1) throw UsageError("expected exactly one model NAME");
  gpu::render_model_info(load_catalog(), args[0], out);
  return kExitOk;
}

int fit_command(const Args& args, std::ostream& out, std::ostream& /*err*/) {
  if (wants_help(args)) {
    out << "usage: dcsim fit KIND MEASUREMENTS.csv\n\nFits profile coefficients by least squares "
           "and prints a JSON fragment for data/models/.\nKIND:\n"
           "  gpu-linear  L0 = xi1 * b + xi2 (HarmonyBatch eq. 2); columns batch,latency_s\n"
           "  cpu-exp     L = alpha_b * exp(-c / beta_b) + gamma_b per batch size (HarmonyBatch "
           "eq. 1); columns batch,cores,latency_s\n"
           "  mps-fbr     fractional bandwidth ratios from co-location slowdowns (Protean eq. 1)\n"
           "  mps-interference  kappa of the MPS sharing model from co-location slowdowns; "
           "columns gpu,unit,job,batch,corunners,slowdown (docs/gpu-models.md)\n"
           "See docs/models.md for the exact CSV formats.\n";
    return kExitOk;
  }
  if (args.size() != 2) throw UsageError("expected KIND and MEASUREMENTS.csv");
  if (args[0] == "mps-interference") {
    gpu::fit_mps_interference_csv(load_catalog(), args[1], out);
  } else {
    gpu::fit(args[0], args[1], out);
  }
  return kExitOk;
}

}  // namespace sim::cli
