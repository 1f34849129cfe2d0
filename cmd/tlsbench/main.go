package main

import (
	"os"

	"github.com/tlsbench/tlsbench/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
