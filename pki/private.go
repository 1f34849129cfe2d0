package pki

import (
	"fmt"
	"os"
)

// CheckPrivateKeyFile refuses a private key file that group or others may
// read or write (mode & 0o077), as OpenSSH refuses such a key: a key
// others can read is no longer private, and one they can write may have
// been replaced. The error says the fix (chmod 600).
func CheckPrivateKeyFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("private key %s is open to group or others (mode %04o): chmod 600 %s", path, m, path)
	}
	return nil
}

// CheckPrivateDir refuses a directory of private keys that group or
// others may write (mode & 0o022): they could replace its keys and
// certificates. The error says the fix (chmod 700).
func CheckPrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		return fmt.Errorf("directory %s is writable by group or others (mode %04o): chmod 700 %s", dir, m, dir)
	}
	return nil
}
