#include "model/provider.h"

#include "model/internal/step_writer.h"

#include <map>
#include <thread>

namespace affordance::model {

struct CancelToken::State {
  std::mutex mu;
  std::mutex run_mu;  // held while callbacks run, so Remove() returns only when none is running
  std::atomic<bool> cancelled{false};
  std::map<int, std::function<void()>> callbacks;
  int next_id = 0;
};

CancelToken::CancelToken() : state_(std::make_shared<State>()) {}

void CancelToken::Cancel() const {
  std::map<int, std::function<void()>> callbacks;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->cancelled.exchange(true)) return;
    callbacks.swap(state_->callbacks);
  }
  std::lock_guard<std::mutex> running(state_->run_mu);
  for (auto& [id, cb] : callbacks) cb();
}

bool CancelToken::cancelled() const { return state_->cancelled.load(); }

int CancelToken::OnCancel(std::function<void()> callback) const {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!state_->cancelled) {
      int id = state_->next_id++;
      state_->callbacks.emplace(id, std::move(callback));
      return id;
    }
  }
  callback();
  return -1;
}

void CancelToken::Remove(int id) const {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->callbacks.erase(id);
  }
  std::lock_guard<std::mutex> running(state_->run_mu);  // wait out a callback in flight
}

void Provider::StreamAsync(StepRequest request, PartSink sink, CancelToken cancel, StepDone done) {
  std::thread([this, request = std::move(request), sink = std::move(sink),
               cancel = std::move(cancel), done = std::move(done)] {
    done(Stream(request, sink, cancel));
  }).detach();
}

CollectedStep Collect(Provider& provider, const StepRequest& request, const CancelToken& cancel) {
  CollectedStep step;
  step.status = provider.Stream(
      request, [&](const formats::StreamPart& part) { step.parts.push_back(part); }, cancel);
  return step;
}

namespace {

class UnconfiguredProvider final : public Provider {
 public:
  explicit UnconfiguredProvider(std::string message) : message_(std::move(message)) {}
  Status Stream(const StepRequest&, const PartSink& sink, const CancelToken&) override {
    internal::StepWriter writer(sink, nullptr);
    writer.StartStep();
    return writer.Fail(MakeError(ErrorKind::kUnavailable, "model.not_configured", message_));
  }
  std::string_view kind() const override { return "none"; }

 private:
  std::string message_;
};

}  // namespace

std::unique_ptr<Provider> MakeUnconfiguredProvider(std::string message) {
  return std::make_unique<UnconfiguredProvider>(std::move(message));
}

}  // namespace affordance::model
