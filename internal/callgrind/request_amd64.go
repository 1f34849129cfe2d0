package callgrind

// request makes valgrind client request args[0] with arguments args[1:],
// and returns valgrind's answer: 0 when not running under valgrind.
//
//go:noescape
func request(args *[6]uintptr) uintptr

// supported says whether this architecture has the client request.
const supported = true
