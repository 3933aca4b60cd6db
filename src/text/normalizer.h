// The normalizer stage: null (identity), NFC, or a Sequence of those, as in tokenizer.json.
#pragma once

#include <string>
#include <string_view>

namespace affordance::text {

class Normalizer {
 public:
  Normalizer() = default;  // identity
  static Normalizer Nfc() {
    Normalizer n;
    n.nfc_ = true;
    return n;
  }
  // A Sequence of normalizers: NFC is idempotent, so any number of NFC steps is one.
  void Then(const Normalizer& next) { nfc_ = nfc_ || next.nfc_; }

  bool is_identity() const { return !nfc_; }
  // Normalizes valid UTF-8 `text` into `out` (replacing its contents).
  void Apply(std::string_view text, std::string& out) const;

 private:
  bool nfc_ = false;
};

// Canonical composition (NFC) of valid UTF-8, appended to `out`.
void AppendNfc(std::string_view text, std::string& out);

// True when `cp` is a starter that NFC leaves unchanged and that never composes with what precedes
// it, so that NFC(x cp y) = NFC(x) NFC(cp y) (exposed for tests).
bool IsNfcInert(char32_t cp);

}  // namespace affordance::text
