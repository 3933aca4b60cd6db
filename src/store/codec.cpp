#include "store/internal/codec.h"

#include "base/json_limits.h"

namespace affordance::store::internal {

Result<std::string> EncodeJson(const nlohmann::json& value, const std::string& what) {
  if (value.is_null()) return std::string("{}");
  if (!value.is_object()) {
    return MakeError("store.bad_input",
                     what + " must be a JSON object, not " + std::string(value.type_name()));
  }
  // What is written must read back (DecodeJson's bound), and dump() recurses over the value.
  if (JsonValueDepth(value, kMaxStoredJsonDepth) > kMaxStoredJsonDepth) {
    return MakeError("store.too_deep", what + " nests deeper than " +
                                           std::to_string(kMaxStoredJsonDepth) +
                                           " levels of arrays and objects; it cannot be stored");
  }
  try {
    return value.dump();
  } catch (const nlohmann::json::exception& e) {  // type_error 316: invalid UTF-8 in a string
    return MakeError("store.bad_input", what + " cannot be stored: " + e.what());
  }
}

Result<nlohmann::json> DecodeJson(std::string_view text, const std::string& row) {
  if (text == "{}") return nlohmann::json::object();  // the default of every JSON column
  // Only a damaged (or hand-edited) file holds text deeper than EncodeJson lets through.
  if (JsonTextDepth(text, kMaxStoredJsonDepth) > kMaxStoredJsonDepth) {
    return MakeError("store.too_deep", row + " is corrupted: it nests deeper than " +
                                           std::to_string(kMaxStoredJsonDepth) +
                                           " levels of arrays and objects");
  }
  auto value = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object()) {
    return MakeError("store.io", row + " is corrupted: not a JSON object",
                     std::string(text.substr(0, 80)));
  }
  return value;
}

std::string EncodeTokens(const std::vector<int32_t>& tokens) {
  std::string out(tokens.size() * 4, '\0');
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto v = static_cast<uint32_t>(tokens[i]);
    out[i * 4 + 0] = static_cast<char>(v & 0xff);
    out[i * 4 + 1] = static_cast<char>((v >> 8) & 0xff);
    out[i * 4 + 2] = static_cast<char>((v >> 16) & 0xff);
    out[i * 4 + 3] = static_cast<char>((v >> 24) & 0xff);
  }
  return out;
}

Result<std::vector<int32_t>> DecodeTokens(std::string_view blob, const std::string& row) {
  if (blob.size() % 4 != 0) {
    return MakeError("store.io", row + " is corrupted: its tokens are " +
                                     std::to_string(blob.size()) + " bytes, not a multiple of 4");
  }
  std::vector<int32_t> tokens(blob.size() / 4);
  auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  for (size_t i = 0; i < tokens.size(); ++i) {
    uint32_t v = uint32_t{p[i * 4]} | uint32_t{p[i * 4 + 1]} << 8 | uint32_t{p[i * 4 + 2]} << 16 |
                 uint32_t{p[i * 4 + 3]} << 24;
    tokens[i] = static_cast<int32_t>(v);
  }
  return tokens;
}

}  // namespace affordance::store::internal
