// Package hostname checks the host names a user gives (a server name to
// send and verify, the host of an address to dial or listen on, the
// names a certificate is for) before any work is done with them: a DNS
// name of labels of letters, digits and hyphens, or an IP address. A
// name that could never resolve or be matched is a mistake to report,
// not hundreds of failing handshakes or a certificate nobody can use.
package hostname
