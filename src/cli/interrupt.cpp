// Stopping long runs by signal. SIGINT (Ctrl-C), SIGTERM (kill, timeout, batch schedulers,
// systemd) and SIGHUP (a closed terminal) all ask the run to stop at its next check and write
// what it recorded, marked partial. Further signals are ignored rather than fatal: the
// write-out is short and bounded, and a second Ctrl-C (or `timeout`, which signals twice) used
// to kill the process in the middle of it, losing the partial results and leaving temporaries.
// SIGKILL remains the way to end a process at once.

#include <unistd.h>

#include <csignal>

#include "commands.hpp"

namespace sim::cli {

namespace {
// The one piece of process-wide state: a signal handler can reach nothing else.
volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_stop_signal(int /*signal*/) {
  if (g_interrupted == 0) {
    g_interrupted = 1;
    // write(2) is async-signal-safe; iostreams are not.
    constexpr char kNote[] =
        "\ndcsim: stopping; writing what was recorded (further signals are ignored)\n";
    [[maybe_unused]] const auto n = ::write(STDERR_FILENO, kNote, sizeof kNote - 1);
  }
}
}  // namespace

void install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a stop request must not fail a write in progress (EINTR)
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    sigaction(signal, &action, nullptr);
  }
}

bool interrupt_requested() {
  return g_interrupted != 0;
}

}  // namespace sim::cli
