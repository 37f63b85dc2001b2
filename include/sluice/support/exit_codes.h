// Exit statuses that the launcher (sluice_launch) reads.
#ifndef SLUICE_SUPPORT_EXIT_CODES_H_
#define SLUICE_SUPPORT_EXIT_CODES_H_

namespace sluice {

// The exit status of a process stopped by a failure that a restart
// recovers from (a parameter server lost its variables; no worker came
// back; a communicator that cannot be aborted holds the GPU): the same
// command started again resumes from the last checkpoint. It is sysexits'
// EX_TEMPFAIL; sluice_launch restarts a rank that exits with it.
inline constexpr int kRestartableExitCode = 75;

}  // namespace sluice

#endif  // SLUICE_SUPPORT_EXIT_CODES_H_
