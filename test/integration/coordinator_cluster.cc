#include "test/integration/coordinator_cluster.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sluice/compiler/compile_program.h"

namespace sluice::dist::testing {
namespace {

constexpr char kProgram[] = R"mlir(
func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @sleep_then_add(%ms: i32, %a: i32, %b: i32) -> i32 {
  %ch0 = tfrt.new.chain
  %late, %ch1 = tfrt.repeat.i32 %ms, %a, %ch0 : i32, !tfrt.chain {
    %us = tfrt.constant.i32 1000
    %ch2 = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
    %a2 = "tfrt_test.identity"(%ch2, %a) : (!tfrt.chain, i32) -> i32
    tfrt.return %a2, %ch2 : i32, !tfrt.chain
  }
  %c = tfrt.add.i32 %late, %b
  tfrt.return %c : i32
}

func.func @identity(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @pair(%r: i32, %i: i32) -> (i32, i32) {
  tfrt.return %r, %i : i32, i32
}

func.func @fail() -> i32 {
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}

func.func @empty() -> !tfrt.chain {
  %ch = tfrt.new.chain
  tfrt.return %ch : !tfrt.chain
}

func.func @bump(%v: !tfrt_dist.variable, %d: !t.tensor, %ms: i32)
    -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %applied = tfrt_dist.assign_add_variable %v, %d, %ch0
  %thousand = tfrt.constant.i32 1000
  %us0 = tfrt.mul.i32 %ms, %thousand
  %us = "tfrt_test.identity"(%applied, %us0) : (!tfrt.chain, i32) -> i32
  %slept = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  %done = tfrt.merge.chains %applied, %slept : !tfrt.chain, !tfrt.chain
  tfrt.return %done : !tfrt.chain
}
)mlir";

std::string Quoted(const std::vector<PortReservation>& ports) {
  std::vector<std::string> quoted;
  for (const PortReservation& port : ports) {
    quoted.push_back(absl::StrCat("\"", port.address(), "\""));
  }
  return absl::StrJoin(quoted, ", ");
}

}  // namespace

std::shared_ptr<const std::vector<uint8_t>> CoordinatorTestProgram() {
  static const auto* const program = [] {
    absl::StatusOr<std::vector<uint8_t>> compiled =
        CompileProgram(kProgram, "coordinator_test.mlir");
    if (!compiled.ok()) {
      std::fprintf(stderr, "cannot compile the coordinator test program: %s\n",
                   std::string(compiled.status().message()).c_str());
      std::abort();
    }
    return new std::shared_ptr<const std::vector<uint8_t>>(
        std::make_shared<const std::vector<uint8_t>>(*std::move(compiled)));
  }();
  return *program;
}

ClosureFunction CoordinatorTestFunction(std::string_view name) {
  absl::StatusOr<ClosureFunction> function =
      ClosureFunction::FromProgram(CoordinatorTestProgram(), name);
  if (!function.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(function.status().message()).c_str());
    std::abort();
  }
  return *std::move(function);
}

absl::StatusOr<std::unique_ptr<CoordinatorCluster>> CoordinatorCluster::Reserve(
    int num_workers, int num_ps) {
  std::unique_ptr<CoordinatorCluster> cluster(new CoordinatorCluster());
  for (int i = 0; i < num_workers + num_ps; ++i) {
    absl::StatusOr<PortReservation> port = PortReservation::Reserve();
    if (!port.ok()) return port.status();
    (i < num_workers ? cluster->worker_ports_ : cluster->ps_ports_)
        .push_back(*std::move(port));
  }
  cluster->spec_json_ = absl::StrCat(
      "{\"worker\": [", Quoted(cluster->worker_ports_), "]",
      num_ps > 0 ? absl::StrCat(", \"ps\": [", Quoted(cluster->ps_ports_), "]")
                 : "",
      "}");
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(cluster->spec_json_);
  if (!spec.ok()) return spec.status();
  cluster->spec_ = *std::move(spec);
  cluster->workers_.resize(num_workers);
  cluster->ps_.resize(num_ps);
  return cluster;
}

CoordinatorCluster::~CoordinatorCluster() {
  workers_.clear();
  ps_.clear();
}

absl::StatusOr<std::unique_ptr<WorkerProcess>> CoordinatorCluster::Start(
    std::string task_name, const PortReservation& port,
    std::vector<std::string> environment) {
  WorkerProcessOptions options;
  options.task_name = std::move(task_name);
  options.port = port.port();
  options.environment = std::move(environment);
  // Closures that update variables reach the parameter servers through it.
  options.environment.push_back(absl::StrCat("SLUICE_CLUSTER=", spec_json_));
  return WorkerProcess::Start(std::move(options));
}

absl::Status CoordinatorCluster::StartWorker(
    int index, std::vector<std::string> environment) {
  workers_[index].reset();
  absl::StatusOr<std::unique_ptr<WorkerProcess>> worker = Start(
      TaskName("worker", index), worker_ports_[index], std::move(environment));
  if (!worker.ok()) return worker.status();
  workers_[index] = *std::move(worker);
  return absl::OkStatus();
}

absl::Status CoordinatorCluster::StartPs(int index) {
  ps_[index].reset();
  absl::StatusOr<std::unique_ptr<WorkerProcess>> ps =
      Start(TaskName("ps", index), ps_ports_[index], {});
  if (!ps.ok()) return ps.status();
  ps_[index] = *std::move(ps);
  return absl::OkStatus();
}

absl::Status CoordinatorCluster::StartAll() {
  for (size_t i = 0; i < ps_.size(); ++i) {
    if (absl::Status started = StartPs(static_cast<int>(i)); !started.ok()) {
      return started;
    }
  }
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (absl::Status started = StartWorker(static_cast<int>(i));
        !started.ok()) {
      return started;
    }
  }
  return absl::OkStatus();
}

}  // namespace sluice::dist::testing
