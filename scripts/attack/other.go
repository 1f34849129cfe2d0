//go:build !linux

package main

import (
	"fmt"
	"os"
)

// The harness reads /proc and makes network namespaces: Linux only.
func main() {
	fmt.Fprintln(os.Stderr, "attack: runs on Linux only (it reads /proc for the targets' CPU and memory)")
	os.Exit(2)
}
