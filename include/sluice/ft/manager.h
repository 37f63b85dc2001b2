// The manager of one replica group in data-parallel training under a
// lighthouse (docs/lighthouse.md). Each step the training loop:
//
//   QuorumView view = manager->StartQuorum(committed_step);  // may heal
//   ... compute gradients, allreduce them over view.group ...
//   if (collective failed) manager->ReportError(error);
//   if (manager->ShouldCommit(step)) apply the update, ++committed_step;
//   else drop the step's work and try again.
//
// With partial collectives the vote names the ranks the result came from,
// ShouldCommit(step, contributors), so that a replica lost mid-step does
// not cost the survivors the step.
//
// The manager heartbeats the lighthouse from a thread of its own, watches
// it for lost members (aborting the current group at once, so a collective
// in flight fails without waiting for its timeout), builds the collective
// group of each new generation (quorum id), and serves this replica's state
// to recovering peers.
#ifndef SLUICE_FT_MANAGER_H_
#define SLUICE_FT_MANAGER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sluice/collective/collective_group.h"
#include "sluice/support/ref_count.h"

namespace sluice::ft {

// The exit status of a replica process killed by an operator from the
// lighthouse's status page (EX_TEMPFAIL): not 0, so that the launcher's
// restart policy applies as for a crash.
inline constexpr int kKilledByOperatorExitCode = 75;

// Whether `status` (from StartQuorum) says an operator drained this replica
// from the lighthouse's status page: it is left out of every quorum until
// the lighthouse restarts, so the program should end, and successfully,
// rather than ask again.
bool IsDrainedByOperator(const absl::Status& status);

// The replica's training state, as the program keeps it: what a recovering
// peer receives (variables, optimizer state, step).
class ReplicaState {
 public:
  virtual ~ReplicaState() = default;
  // Called on the manager's healing thread while a peer heals from this
  // replica: the state as of the last committed step.
  virtual absl::StatusOr<std::string> Save() = 0;
  // Called inside StartQuorum when this replica heals: replaces the state.
  virtual absl::Status Load(std::string_view bytes) = 0;
};

struct ManagerOptions {
  // Every lighthouse's address; the manager follows the leader.
  std::vector<std::string> lighthouses;
  // Unique and stable across restarts of this replica group.
  std::string replica_id;
  // Where this replica binds its healing service and collective
  // connections, and what its peers dial.
  std::string host = "127.0.0.1";
  absl::Duration heartbeat_interval = absl::Milliseconds(100);
  absl::Duration quorum_timeout = absl::Seconds(60);
  absl::Duration collective_timeout = absl::Seconds(30);
  absl::Duration heal_timeout = absl::Seconds(60);
  absl::Duration commit_timeout = absl::Seconds(30);
  // How a replica behind its quorum heals. False: inside StartQuorum, while
  // its peers wait for it in the step's collectives (a heal as long as the
  // transfer stalls them as long). True: in the background, while the
  // group trains on: it takes part in each step's collectives with zeros
  // (QuorumView::healing), keeps each committed step's update, and once
  // the state is loaded (QuorumView::loaded_step) re-applies the kept
  // updates of that step and later. The peers do not wait for the heal.
  bool heal_in_background = false;
  // Called on the manager's watch thread when an operator killed this
  // replica from the lighthouse's status page, with the line that says so
  // ("replica <id>: killed by the operator (<name> from the lighthouse
  // status page)"). Null: the line goes to the log and the process ends
  // at once with kKilledByOperatorExitCode. Tests set their own.
  std::function<void(const std::string& message)> on_kill;
};

// What StartQuorum found.
struct QuorumView {
  int64_t generation = 0;  // the quorum id
  int rank = 0;            // this replica's index among the participants
  int size = 0;            // participants
  int64_t max_step = 0;    // the highest committed step among them
  // The replica this one healed from in this call, "" when it did not.
  std::string healed_from;
  std::string reason;  // why the quorum formed, from the lighthouse
  RCReference<ccl::CollectiveGroup> group;
  // Participants whose state is current, and so contribute to the step:
  // what an average over the group divides by (a participant healing in
  // the background contributes zeros).
  int contributors = 0;
  // With heal_in_background: this replica's state is being fetched. Its
  // step is the group's from now on (max_step when the heal began, then
  // one more per committed step), but its state is not: it contributes
  // zeros to the step's collectives and keeps the step's update instead of
  // applying it.
  bool healing = false;
  // With heal_in_background: in the call where the fetched state was
  // loaded, the step it is as of (at least the max_step the heal began
  // at), -1 otherwise. The program re-applies the updates it kept for this
  // step and later ones; its state is then as of its step again.
  int64_t loaded_step = -1;
};

class Manager {
 public:
  // Starts the healing service, the heartbeat and the watch. `state`
  // outlives the manager.
  static absl::StatusOr<std::unique_ptr<Manager>> Create(ManagerOptions options,
                                                         ReplicaState* state);
  virtual ~Manager() = default;

  // Joins the next quorum with `step`, this replica's last committed step.
  // Builds the group of a new generation (and keeps the current one when
  // the generation did not change and it still works). When this replica
  // is behind the quorum's highest step, loads the state of an up-to-date
  // participant (chosen round-robin) before returning. Errors are
  // retryable (no quorum in time, a heal that failed); the caller calls
  // again, except after an operator drained this replica
  // (IsDrainedByOperator), when every call fails alike.
  virtual absl::StatusOr<QuorumView> StartQuorum(int64_t step) = 0;

  // Records that a collective of the current step failed: this replica
  // votes against it.
  virtual void ReportError(absl::Status error) = 0;

  // Votes on `step` of the current quorum: true only when every participant
  // voted for it and there were at least the lighthouse's min_replicas.
  // False counts as a failed commit, so the next quorum is a new
  // generation.
  virtual absl::StatusOr<bool> ShouldCommit(int64_t step) = 0;

  // Votes on `step` as ShouldCommit(step) does, naming the ranks (of the
  // current quorum's group, QuorumView::rank numbering) whose inputs the
  // step's partial collectives used: the step commits when every
  // contributor voted for it with the same contributors, however many other
  // participants were lost. The group's health does not turn this vote
  // against: a partial collective that left ranks out, or a lost member,
  // breaks the group; errors reach the vote through ReportError. No
  // contributors: as ShouldCommit(step). A rank out of range is
  // InvalidArgument, and no vote is sent.
  virtual absl::StatusOr<bool> ShouldCommit(
      int64_t step, const std::vector<int>& contributors) = 0;

  // Where this replica's healing service listens ("host:port").
  virtual std::string address() const = 0;
};

}  // namespace sluice::ft

#endif  // SLUICE_FT_MANAGER_H_
