// Real process kills. A forked child opens the same store and sources as a separate process would,
// runs one step of the write path and is SIGKILLed at a chosen point: after staging, after the
// approval, after the claim (key committed, nothing sent), during dispatch (the CLI is still
// running), and after dispatch before the receipt. After each "restart" the source never holds a
// duplicate effect (rows / effects are counted) and the approval ends in the right state.
#include "support.h"

#include <gmock/gmock.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <functional>
#include <thread>

namespace affordance::authority::testing {
namespace {

using nlohmann::json;

// Forks; the child reopens everything (never touching the parent's connections), runs `body`
// and then waits to be killed. The parent waits until `ready()` (at most 30 s), SIGKILLs the
// child, reaps it and reopens, as a restarted process would.
void KillChildWhen(World& w, const std::function<void(World&)>& body,
                   const std::function<bool()>& ready) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The parent's objects are leaked, not destroyed: their connections belong to the parent.
    (void)w.authority.release();
    (void)w.road.release();
    (void)w.store.release();
    w.Open();
    body(w);
    for (;;) pause();
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!ready() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(ready()) << "the child never reached the kill point";
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  w.Open();
}

// A probe that, at `phase`, writes the marker and stops there until the kill.
AuthorityOptions StopAt(const std::string& phase, const std::string& marker) {
  AuthorityOptions o;
  o.probe = [phase, marker](std::string_view at) {
    if (at != phase) return;
    std::ofstream(marker) << "here";
    for (;;) pause();
  };
  return o;
}

std::string StatusOf(World& w, const std::string& id) { return w.store->GetApproval(id)->status; }

TEST(AuthorityKill, AfterStagingTheRequestIsPendingAndRunsOnceWhenApproved) {
  World w;
  w.GrantWrite("notes");
  const std::string marker = w.dir / "marker";
  KillChildWhen(
      w,
      [&](World& c) {
        c.Staged("notes", "add_note", {{"body", "one"}});
        std::ofstream(marker) << "staged";
      },
      [&] { return std::filesystem::exists(marker); });
  auto list = w.store->ListApprovals("", "");
  ASSERT_EQ(list->size(), 1u);
  const std::string id = (*list)[0].id;
  EXPECT_EQ((*list)[0].status, "pending");
  EXPECT_EQ(w.Notes(), 0);
  ASSERT_TRUE(w.authority->Approve(id, w.person).ok());
  EXPECT_EQ(w.authority->Execute(id)->state, "verified");
  EXPECT_FALSE(w.authority->Execute(id).ok());
  EXPECT_EQ(w.Notes(), 1);
}

TEST(AuthorityKill, AfterApprovalTheEffectIsStillApprovedAndRunsOnce) {
  World w;
  w.GrantWrite("notes");
  const std::string id = w.Staged("notes", "add_note", {{"body", "two"}});
  const std::string marker = w.dir / "marker";
  KillChildWhen(
      w,
      [&](World& c) {
        ASSERT_TRUE(c.authority->Approve(id, c.person).ok());
        std::ofstream(marker) << "approved";
      },
      [&] { return std::filesystem::exists(marker); });
  EXPECT_EQ(StatusOf(w, id), "approved");
  EXPECT_EQ(w.Notes(), 0);
  EXPECT_TRUE(w.authority->ReconcileAll()->empty()) << "nothing was dispatched";
  EXPECT_EQ(w.authority->Execute(id)->state, "verified");
  EXPECT_EQ(w.authority->Execute(id).error().code, "authority.already_executed");
  EXPECT_EQ(w.Notes(), 1);
}

TEST(AuthorityKill, AfterTheClaimBeforeDispatchReconcileFindsItNotExecuted) {
  World w;
  w.GrantWrite("notes");
  const std::string id = w.Approved("notes", "add_note", {{"body", "three"}});
  const std::string marker = w.dir / "marker";
  KillChildWhen(
      w,
      [&](World& c) {
        c.Open(StopAt("claimed", marker));
        (void)c.authority->Execute(id);
      },
      [&] { return std::filesystem::exists(marker); });
  EXPECT_EQ(StatusOf(w, id), "executing");
  EXPECT_EQ(w.authority->Execute(id).error().code, "authority.already_executed");
  auto reconciled = w.authority->ReconcileAll();
  ASSERT_TRUE(reconciled.ok()) << reconciled.error().ToString();
  ASSERT_EQ(reconciled->size(), 1u);
  EXPECT_EQ((*reconciled)[0].state, "not_executed");
  EXPECT_EQ((*reconciled)[0].receipt->evidence["reconcile"]["by"], "fresh_read");
  EXPECT_EQ(w.Notes(), 0);
}

TEST(AuthorityKill, DuringDispatchTheOutcomeIsUnknownThenReconciledExecutedWithoutADuplicate) {
  World w;
  w.GrantWrite("fixture");
  const std::string id = w.Approved("fixture", "close_item", {{"id", "5"}});
  setenv("FIXTURE_PP_WRITE_HANG_MS", "3000", 1);  // the CLI applies the effect, then hangs
  KillChildWhen(
      w, [&](World& c) { (void)c.authority->Execute(id); }, [&] { return w.Effects() == 1; });
  unsetenv("FIXTURE_PP_WRITE_HANG_MS");
  EXPECT_EQ(StatusOf(w, id), "executing");
  auto receipts = w.store->ReceiptsOf(id);
  ASSERT_EQ(receipts->size(), 1u);
  EXPECT_EQ((*receipts)[0].outcome, "dispatching");
  auto reconciled = w.authority->Reconcile(id);
  ASSERT_TRUE(reconciled.ok()) << reconciled.error().ToString();
  EXPECT_EQ(reconciled->state, "verified");
  EXPECT_EQ(reconciled->receipt->evidence["reconcile"]["by"], "idempotency_key_lookup");
  EXPECT_EQ(w.authority->Execute(id).error().code, "authority.already_executed");
  EXPECT_EQ(w.Effects(), 1);
}

TEST(AuthorityKill, AfterDispatchBeforeTheReceiptReconcileFindsItExecuted) {
  World w;
  w.GrantWrite("notes");
  const std::string id = w.Approved("notes", "add_note", {{"body", "four"}});
  const std::string marker = w.dir / "marker";
  KillChildWhen(
      w,
      [&](World& c) {
        c.Open(StopAt("dispatched", marker));
        (void)c.authority->Execute(id);
      },
      [&] { return std::filesystem::exists(marker); });
  EXPECT_EQ(w.Notes(), 1);
  EXPECT_EQ(StatusOf(w, id), "executing");
  EXPECT_EQ((*w.store->ReceiptsOf(id))[0].outcome, "dispatching");
  auto reconciled = w.authority->ReconcileAll();
  ASSERT_TRUE(reconciled.ok()) << reconciled.error().ToString();
  ASSERT_EQ(reconciled->size(), 1u);
  EXPECT_EQ((*reconciled)[0].state, "verified");
  EXPECT_EQ((*reconciled)[0].receipt->outcome, "executed");
  EXPECT_FALSE(w.authority->Execute(id).ok());
  EXPECT_EQ(w.Notes(), 1) << "never a duplicate effect";
}

}  // namespace
}  // namespace affordance::authority::testing
