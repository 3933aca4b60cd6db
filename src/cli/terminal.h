// The terminal face of the harness: renders harness::Events as a person reads them (streamed
// text, one line per tool call with its truth state, a spinner while a step runs, the turn's
// status), and turns Ctrl-C into a cancellation of the running turn.
#pragma once

#include "cli/surface_text.h"
#include "harness/event.h"
#include "harness/evidence.h"
#include "model/provider.h"
#include "store/store.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>

namespace affordance::cli {

bool IsTty(int fd);

// The columns of the terminal `fd` writes to: $COLUMNS when it is a positive number, else the
// terminal's size (ioctl TIOCGWINSZ), else 80.
size_t TerminalWidth(int fd);

// Whether output to `fd` may be styled with ANSI escapes: it is a terminal and $NO_COLOR is unset
// or empty (https://no-color.org).
bool ColorWanted(int fd);

class TerminalView {
 public:
  // `tty`: a spinner and line rewriting, coloured unless $NO_COLOR says otherwise, every line
  // within the terminal's width (TerminalWidth; the answer word-wrapped, tool lines giving up
  // their arguments first, then folded); otherwise plain, whole lines. Surfaces are printed as text
  // (cli/surface_text.h) at the width either way, their tables filled with rows re-read through
  // `surfaces`.
  TerminalView(std::ostream& out, bool tty, SurfaceSource surfaces = {});
  ~TerminalView();
  void Show(const harness::Event& event);

  // A stored message as it read when it streamed (/resume): a user message as its prompt line,
  // an assistant message replayed part by part through Show (answer text word-wrapped with its
  // citation marks, one line per tool call, effect cards, surfaces with fresh rows), then the
  // legend, the status line and the reason of its end state. `approvals`: the thread's approval
  // rows by id, for the cards its calls staged.
  void ShowStored(const store::MessageRecord& message,
                  const std::map<std::string, store::ApprovalRecord>& approvals);

 private:
  // A citation of the prose: its class mark inline; its references join the legend.
  void Cite(const nlohmann::ordered_json& citation);
  // The cited references, one line each with their class and evidence, then the key.
  void Legend();
  std::string ClaimCounts(const std::vector<harness::Claim>& claims) const;
  // The turn's closing lines: the legend, then "— status · N steps · evidence … · claims … ·
  // P prompt tokens (C cached)", one line when it fits.
  void EndOfTurn(std::string_view status, size_t steps, const std::string& weakest,
                 const std::string& claims, int64_t prompt, int64_t cached);
  void Write(const std::string& text);  // erases the spinner first
  // Streams answer text, wrapping at word boundaries at the terminal's width (tty only).
  void Prose(const std::string& delta);
  void FlushWord();
  void Line(const std::string& text);  // on a line of its own
  void Spin(const std::string& label);
  void StopSpin();
  // A staged write's effect card (connect/effect.h), before the person decides.
  void ShowEffect(const nlohmann::ordered_json& approval);
  std::string Dim(const std::string& s) const;
  std::string Color(const char* code, const std::string& s) const;
  std::string Fit(const std::string& text) const;  // on a tty, each line folded to its width

  std::ostream& out_;
  bool tty_;
  bool color_;
  SurfaceSource surfaces_;
  size_t columns_;  // the terminal's width, for lines that must fit it
  std::mutex mu_;
  bool at_line_start_ = true;
  bool gap_before_text_ = false;  // tool or surface lines were printed since the last text
  size_t width_ = 0;              // where answer text wraps (0: no wrapping)
  size_t column_ = 0;             // where the cursor is on the current line
  std::string word_;              // a word still arriving
  std::string spin_label_;
  bool spinning_ = false;
  bool replaying_ = false;  // ShowStored: no spinner (nothing runs)
  bool spinner_drawn_ = false;
  std::atomic<bool> quit_{false};
  std::thread spinner_;
  struct Call {
    std::string name;
    std::string args;
    std::string error;
    std::string approval;  // a staged effect awaiting a decision
    std::string unrun;     // "cancelled" / "not_run": closed without running, not an error
    std::string served;    // a connector read: what it served of what the source held
    bool shown = false;    // its line is printed already (a malformed or cut-off call)
    bool ok = false;
  };
  std::map<std::string, Call> calls_;
  // The references this turn's prose cited, with what they resolved to (printed as a legend).
  std::vector<nlohmann::json> cited_;
  std::chrono::steady_clock::time_point step_started_;
};

// While alive, Ctrl-C (SIGINT) cancels `cancel` instead of killing the process.
class InterruptGuard {
 public:
  explicit InterruptGuard(model::CancelToken cancel);
  ~InterruptGuard();

 private:
  model::CancelToken cancel_;
  std::atomic<bool> done_{false};
  std::thread watcher_;
  struct sigaction previous_ {};
};

}  // namespace affordance::cli
