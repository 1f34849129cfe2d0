package runner

import (
	"fmt"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
)

// A case of the resumption axis with session-id resumes TLS 1.2 by
// session ID: the load generator keeps its sessions itself, one pool per
// case and side, scoped by client identity as the ticket sessions are
// (client.IDSessions). Only external servers, or proxies given by URL,
// can give session IDs: the plan reports the case as not runnable
// elsewhere.

// resumesByID is the resumption axis's hook: whether the case's clients
// resume by session ID.
func resumesByID(c *Case) bool {
	v, _ := plan.ValueOf[string](c, "resumption")
	return v == plan.ResumptionSessionID
}

// byID sets hc up to resume by session ID, keeping up to size sessions
// per client identity, when the case does. The clients' first uses and
// reuses of tickets are not counted: a session ID is offered again and
// again.
func byID(c *Case, hc *measure.HandshakeCase, size int) {
	if !resumesByID(c) {
		return
	}
	hc.SessionIDs = client.NewIDSessions(size)
	hc.TrackTicketUse = false
}

// byIDHint is the advice of a resumption error of a case that resumes by
// session ID, from what its connections saw.
func byIDHint(hc *measure.HandshakeCase) string {
	if why := hc.SessionIDs.Why(); why != "" {
		return why
	}
	return "the server did not resume the session IDs offered"
}

// byIDNote says, in the record of a case that resumes by session ID, how
// many of its full handshakes got no session ID and how many of its
// resumptions the server declined, over the whole case (priming and
// warm-up included).
func byIDNote(hc *measure.HandshakeCase, rec *results.Record) {
	if hc.SessionIDs == nil {
		return
	}
	noID, misses := hc.SessionIDs.Counts()
	if noID > 0 {
		rec.Notes = append(rec.Notes, fmt.Sprintf("%d full handshakes got no session ID from the server: it resumes by ticket only, if at all", noID))
	}
	if misses > 0 {
		rec.Notes = append(rec.Notes, fmt.Sprintf("the server did not resume %d session IDs offered (it started new sessions: each such connection made a full handshake on a new connection, counted as not resumed)", misses))
	}
}
