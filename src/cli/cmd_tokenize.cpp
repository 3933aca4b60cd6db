// `affordance tokenize` and `affordance detokenize`: the tokenizer on the command line.
//
//   affordance tokenize --model M [--special] [--json] [--jsonl]
//     Reads stdin and prints its token IDs, space-separated, on one line. --special matches
//     added-token spellings such as <|im_end|> as control tokens (trusted text only); by default
//     they are plain text. --json prints {"ids": [...], "pieces": [...]} (pieces are the
//     vocabulary strings). --jsonl: every input line is a JSON string and every output line the
//     JSON array of its IDs (batch mode).
//   affordance detokenize --model M
//     Reads IDs (a JSON array or whitespace-separated integers) and prints the text.
#include "cli/command.h"
#include "cli/output.h"
#include "text/tokenizer.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

namespace affordance::cli {
namespace {

struct TokenizeOptions {
  std::string model;
  bool special = false;
  bool json = false;
  bool jsonl = false;
};

nlohmann::json IdsJson(const std::vector<text::TokenId>& ids) { return nlohmann::json(ids); }

int RunJsonLines(const text::Tokenizer& tokenizer, const text::EncodeOptions& options,
                 bool json_errors) {
  std::string line;
  std::vector<text::TokenId> ids;
  size_t number = 0;
  while (std::getline(std::cin, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (auto deep = CheckInputDepth(line, "a --jsonl input line"); !deep) {
      Error e = deep.error();
      e.detail = "line " + std::to_string(number) + ": " + e.detail;
      return ReportError(e, json_errors, kExitUsage);
    }
    nlohmann::json value = nlohmann::json::parse(line, nullptr, false);
    if (value.is_discarded() || !value.is_string()) {
      return ReportError(
          MakeError(ErrorKind::kInvalid, "cli.bad_input",
                    "a --jsonl input line is not a JSON string", "line " + std::to_string(number)),
          json_errors, kExitUsage);
    }
    ids.clear();
    Status s = tokenizer.EncodeInto(value.get_ref<const std::string&>(), ids, options);
    if (!s.ok()) {
      Error e = s.error();
      e.detail = "line " + std::to_string(number) + ": " + e.detail;
      return ReportError(e, json_errors, kExitUsage);
    }
    std::cout << IdsJson(ids).dump() << '\n';
  }
  std::cout.flush();
  return kExitOk;
}

int RunTokenize(const TokenizeOptions& opts) {
  auto tokenizer = text::LoadModel(opts.model);
  if (!tokenizer.ok()) return ReportError(tokenizer.error(), opts.json, kExitUsage);
  text::EncodeOptions options;
  options.match_special = opts.special;
  if (opts.jsonl) return RunJsonLines(**tokenizer, options, opts.json);

  std::string input = ReadStdin();
  auto ids = (*tokenizer)->Encode(input, options);
  if (!ids.ok()) return ReportError(ids.error(), opts.json, kExitUsage);
  if (opts.json) {
    nlohmann::json pieces = nlohmann::json::array();
    for (text::TokenId id : *ids)
      pieces.push_back(std::string((*tokenizer)->TokenString(id).value_or("")));
    std::cout << nlohmann::json{{"ids", IdsJson(*ids)}, {"pieces", pieces}}.dump() << std::endl;
    return kExitOk;
  }
  // IDs formatted in place into a 64 KiB buffer written whenever it fills: no allocation the
  // size of the output (fresh pages cost a fault each) and a few ms for a million IDs.
  char buffer[1 << 16];
  size_t used = 0;
  for (size_t i = 0; i < ids->size(); ++i) {
    if (used + 13 > sizeof buffer) {  // room for a space, 11 characters and the newline
      std::cout.write(buffer, static_cast<std::streamsize>(used));
      used = 0;
    }
    if (i) buffer[used++] = ' ';
    used = static_cast<size_t>(std::to_chars(buffer + used, buffer + sizeof buffer, (*ids)[i]).ptr -
                               buffer);
  }
  buffer[used++] = '\n';
  std::cout.write(buffer, static_cast<std::streamsize>(used));
  std::cout.flush();
  return kExitOk;
}

Result<std::vector<text::TokenId>> ParseIds(const std::string& input) {
  size_t first = input.find_first_not_of(" \t\r\n");
  std::vector<text::TokenId> ids;
  if (first != std::string::npos && input[first] == '[') {
    if (auto deep = CheckInputDepth(input, "the list of token IDs"); !deep) return deep.error();
    nlohmann::json value = nlohmann::json::parse(input, nullptr, false);
    if (value.is_discarded() || !value.is_array())
      return MakeError(ErrorKind::kInvalid, "cli.bad_input",
                       "input starts with '[' but is not a JSON array of IDs");
    for (const auto& v : value) {
      if (!v.is_number_integer() || v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX)
        return MakeError(ErrorKind::kInvalid, "cli.bad_input", "a token ID is not an integer",
                         v.dump());
      ids.push_back(v.get<text::TokenId>());
    }
    return ids;
  }
  std::istringstream in(input);
  std::string word;
  while (in >> word) {
    text::TokenId id = 0;
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), id);
    if (ec != std::errc() || end != word.data() + word.size())
      return MakeError(ErrorKind::kInvalid, "cli.bad_input", "a token ID is not an integer", word);
    ids.push_back(id);
  }
  return ids;
}

int RunDetokenize(const std::string& model, bool json) {
  auto tokenizer = text::LoadModel(model);
  if (!tokenizer.ok()) return ReportError(tokenizer.error(), json, kExitUsage);
  auto ids = ParseIds(ReadStdin());
  if (!ids.ok()) return ReportError(ids.error(), json, kExitUsage);
  auto decoded = (*tokenizer)->Decode(*ids);
  if (!decoded.ok()) return ReportError(decoded.error(), json, kExitUsage);
  if (json) {
    std::cout << nlohmann::json{{"text", *decoded}}.dump() << std::endl;
  } else {
    std::cout << *decoded << std::flush;
  }
  return kExitOk;
}

const bool kTokenizeRegistered = RegisterCommand(
    {"tokenize", "Encode stdin into token IDs of a model", [](CLI::App& sub) -> Runner {
       auto opts = std::make_shared<TokenizeOptions>();
       sub.add_option("--model", opts->model, "registered model name or folder with tokenizer.json")
           ->required();
       sub.add_flag("--special", opts->special,
                    "match special-token spellings as control tokens (trusted text only)");
       sub.add_flag("--json", opts->json, "print {\"ids\", \"pieces\"}; errors as JSON");
       sub.add_flag("--jsonl", opts->jsonl,
                    "batch mode: each input line a JSON string, each output line its IDs");
       return [opts] { return RunTokenize(*opts); };
     }});

const bool kDetokenizeRegistered = RegisterCommand(
    {"detokenize", "Decode token IDs from stdin into text", [](CLI::App& sub) -> Runner {
       auto model = std::make_shared<std::string>();
       auto json = std::make_shared<bool>(false);
       sub.add_option("--model", *model, "registered model name or folder with tokenizer.json")
           ->required();
       sub.add_flag("--json", *json, "print {\"text\"}; errors as JSON");
       return [model, json] { return RunDetokenize(*model, *json); };
     }});

}  // namespace
}  // namespace affordance::cli
