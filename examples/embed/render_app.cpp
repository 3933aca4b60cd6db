// A program embedding affordance from an installed package (docs/INSTALL.md):
//
//   render_app <view.tsx> <entry> <model name> <state.json>
//
// renders the view with the state's props under the model's chat format and prints
// {"tokens": [...], "tools": [...]}. The views library and the tokenizer data come from the
// installed package (affordance_VIEWS_LIB_DIR / affordance_MODELS_DIR, compiled in by
// CMakeLists.txt); errors are printed as {"error": {...}} with exit status 1.
#include <render/renderer.h>

#include <fstream>
#include <iostream>
#include <sstream>

namespace {

int Fail(const affordance::Error& e) {
  std::cout << nlohmann::json{{"error",
                               {{"code", e.code}, {"message", e.message}, {"detail", e.detail}}}}
            << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: render_app <view.tsx> <entry> <model name> <state.json>\n";
    return 2;
  }
  std::ifstream in(argv[4]);
  std::stringstream text;
  text << in.rdbuf();
  auto props = nlohmann::ordered_json::parse(text.str(), nullptr, false);
  if (props.is_discarded()) return Fail({"example.state", "the state file is not JSON", argv[4]});

  auto tokenizer = affordance::text::LoadModel(std::string(AFFORDANCE_MODELS_DIR) + "/" + argv[3]);
  if (!tokenizer.ok()) return Fail(tokenizer.error());
  affordance::view::ViewOptions options;
  options.lib_root = AFFORDANCE_VIEWS_LIB_DIR;
  options.cache_dir = "-";
  auto renderer =
      affordance::render::Renderer::Load(argv[1], argv[2], *tokenizer, argv[3], options);
  if (!renderer.ok()) return Fail(renderer.error());
  auto prompt = (*renderer)->Render(props);
  if (!prompt.ok()) return Fail(prompt.error());
  std::cout << nlohmann::ordered_json{{"tokens", prompt->tokens}, {"tools", prompt->ToolsJson()}}
            << "\n";
  return 0;
}
