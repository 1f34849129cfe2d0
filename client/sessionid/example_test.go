package sessionid_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"

	"github.com/tlsbench/tlsbench/client/sessionid"
)

// A full handshake learns the session; later connections resume it by
// ID, and a server that no longer holds it says so with ErrNotResumed.
func Example() {
	ctx := context.Background()
	cfg := &tls.Config{ServerName: "example.com"}
	conn, err := net.Dial("tcp", "example.com:443")
	if err != nil {
		log.Fatal(err)
	}
	tc, session, err := sessionid.Handshake(ctx, conn, cfg)
	if err != nil {
		log.Fatal(err) // ErrNoSessionID: the server caches no session
	}
	tc.Close()

	conn, err = net.Dial("tcp", "example.com:443")
	if err != nil {
		log.Fatal(err)
	}
	resumed, err := sessionid.Resume(ctx, conn, session)
	if errors.Is(err, sessionid.ErrNotResumed) {
		fmt.Println("the server started a new session: run a full handshake")
		return
	} else if err != nil {
		log.Fatal(err)
	}
	defer resumed.Close()
	fmt.Println(resumed.ConnectionState().DidResume)
}
