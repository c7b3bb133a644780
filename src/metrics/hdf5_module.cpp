// The HDF5 module's one exported symbol (hdf5_module.hpp); the module is built with hidden
// visibility, so nothing else in it can be bound to from outside.

#include "hdf5_module.hpp"

extern "C" {
__attribute__((visibility("default"))) extern const sim::metrics::h5::ModuleApi dcsim_hdf5_module;
const sim::metrics::h5::ModuleApi dcsim_hdf5_module = {
    sim::metrics::h5::kAbi, &sim::metrics::h5::make_writer, &sim::metrics::h5::read_file};
}
