package server

// QUICMaxAwaitingHello is quicMaxAwaitingHello, for the flood test.
const QUICMaxAwaitingHello = quicMaxAwaitingHello
