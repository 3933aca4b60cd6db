#include "model/provider.h"

#include <map>

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

CollectedStep Collect(Provider& provider, const StepRequest& request, const CancelToken& cancel) {
  CollectedStep step;
  step.status = provider.Stream(
      request, [&](const formats::StreamPart& part) { step.parts.push_back(part); }, cancel);
  return step;
}

}  // namespace affordance::model
