package tempdir

// RemoveStaleIn is RemoveStale in the directory tmp.
var RemoveStaleIn = removeStale

// MakeIn is Make in the directory tmp, without removing stale ones.
var MakeIn = makeIn
