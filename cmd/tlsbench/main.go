// Command tlsbench measures what TLS handshakes and bulk transfer cost,
// and verifies that resumption really happens. See README.md.
package main

import (
	"os"

	"github.com/tlsbench/tlsbench/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
