package command

import (
	"github.com/tlsbench/tlsbench/server"
)

// earlyDataPolicyUsage is --early-data-policy's help, one definition for
// the commands that configure the built-in server's QUIC listener.
const earlyDataPolicyUsage = "what the built-in server does with early data (0-RTT) on QUIC: " +
	"single-use (a ticket's first use may carry early data, a replay of it may not), " +
	"reject (its tickets allow early data, it refuses it: the client sends again a round trip later) or " +
	"accept (every time, replayed flights too: for a lab)"

// AcceptWarning is what serve says at start under --early-data-policy
// accept: a replayed first flight gets its request answered again.
const AcceptWarning = "tlsbench: WARNING: --early-data-policy accept accepts replayed 0-RTT data " +
	"(a copied first flight has its request answered again); use single-use (the default) outside a lab"

// CheckEarlyDataPolicy validates a --early-data-policy value, by the
// server's rule.
func CheckEarlyDataPolicy(policy string) error {
	if err := server.CheckEarlyDataPolicy(policy); err != nil {
		return Usagef("%s", UserText(err))
	}
	return nil
}
