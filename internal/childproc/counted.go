package childproc

import (
	"os"

	"github.com/tlsbench/tlsbench/internal/callgrind"
)

// counted is the command that runs the child with args: the program
// itself, or with Options.Instructions valgrind's callgrind running it,
// with what that adds to the environment and the directory of its dumps
// ("" for none), which removeDumps removes once the child has exited.
func counted(o Options, args []string) (path string, argv, env []string, dir string, err error) {
	if !o.Instructions {
		return o.Path, args, nil, "", nil
	}
	if dir, err = os.MkdirTemp("", "tlsbench-callgrind-"); err != nil {
		return "", nil, nil, "", err
	}
	if path, argv, env, err = callgrind.Command(dir, o.Path, args); err != nil {
		os.RemoveAll(dir)
		return "", nil, nil, "", err
	}
	return path, argv, env, dir, nil
}

// removeDumps removes a child's directory of dumps, if it had one.
func removeDumps(dir string) {
	if dir != "" {
		os.RemoveAll(dir)
	}
}
