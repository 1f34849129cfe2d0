// JSSEServer is a small TLS server on Java's own TLS stack (JSSE), for
// tlsbench's tests: what a Java service does with handshakes, session
// resumption and its sockets, on 127.0.0.1 only.
//
// Usage: java JSSEServer KEYSTORE.p12 PASSWORD MODE KEYMANAGER PROTOCOLS NODELAY [CLIENT-CA.p12]
//   MODE        echo (every byte read is written back) or http (answers
//               HEAD and GET with a small page, keep-alive)
//   KEYMANAGER  SunX509 (the JDK's default: keeps the key) or PKIX (reads
//               the key from the key store, decrypting it, on every full
//               handshake)
//   PROTOCOLS   comma-separated (TLSv1.2,TLSv1.3) or "default"
//   NODELAY     true to set TCP_NODELAY on accepted sockets; false leaves
//               Nagle on, as Java's sockets do unless told
//   CLIENT-CA   a PKCS#12 trust store: client certificates are required
//               and verified against it
//
// Session tickets are on or off with the JDK's system property
// jdk.tls.server.enableSessionTicketExtension.
//
// It prints "ACCEPT 127.0.0.1:PORT" once it accepts, and serves until
// killed.
import java.io.*;
import java.net.*;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.util.concurrent.*;
import javax.net.ssl.*;

public class JSSEServer {
    public static void main(String[] args) throws Exception {
        if (args.length < 6) {
            System.err.println("usage: JSSEServer KEYSTORE PASSWORD MODE KEYMANAGER PROTOCOLS NODELAY [CLIENT-CA]");
            System.exit(2);
        }
        char[] password = args[1].toCharArray();
        String mode = args[2];
        boolean noDelay = Boolean.parseBoolean(args[5]);

        KeyManagerFactory kmf = KeyManagerFactory.getInstance(args[3]);
        if (args[3].equals("PKIX")) {
            // The PKIX key manager takes its keys through a builder, as
            // Java services configured for it do.
            KeyStore.Builder b = KeyStore.Builder.newInstance("PKCS12", null,
                    new File(args[0]), new KeyStore.PasswordProtection(password));
            kmf.init(new KeyStoreBuilderParameters(b));
        } else {
            kmf.init(load(args[0], password), password);
        }
        TrustManager[] tms = null;
        if (args.length > 6) {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(load(args[6], password));
            tms = tmf.getTrustManagers();
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), tms, null);

        SSLServerSocket ss = (SSLServerSocket) ctx.getServerSocketFactory()
                .createServerSocket(0, 1024, InetAddress.getByName("127.0.0.1"));
        if (!args[4].equals("default")) {
            ss.setEnabledProtocols(args[4].split(","));
        }
        if (tms != null) {
            ss.setNeedClientAuth(true);
        }
        System.out.println("ACCEPT 127.0.0.1:" + ss.getLocalPort());
        System.out.flush();

        ExecutorService pool = Executors.newCachedThreadPool();
        while (true) {
            Socket s = ss.accept();
            pool.execute(() -> serve(s, mode, noDelay));
        }
    }

    static KeyStore load(String path, char[] password) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(path)) {
            ks.load(in, password);
        }
        return ks;
    }

    static void serve(Socket s, String mode, boolean noDelay) {
        try (Socket c = s) {
            c.setTcpNoDelay(noDelay);
            c.setSoTimeout(30000);
            InputStream in = c.getInputStream();
            OutputStream out = c.getOutputStream();
            if (mode.equals("http")) {
                http(in, out);
            } else {
                echo(in, out);
            }
        } catch (IOException e) {
            // A client that resets its connection (tlsbench closes with
            // SO_LINGER 0) ends it here; nothing to report.
        }
    }

    static void echo(InputStream in, OutputStream out) throws IOException {
        byte[] buf = new byte[16384];
        for (int n; (n = in.read(buf)) > 0; ) {
            out.write(buf, 0, n);
            out.flush();
        }
    }

    static final byte[] PAGE = "tlsbench JSSE peer\n".getBytes(StandardCharsets.US_ASCII);

    // http answers each request head (HEAD or GET) with a small page,
    // keeping the connection unless the client asked to close it.
    static void http(InputStream in, OutputStream out) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.ISO_8859_1));
        while (true) {
            String line = r.readLine();
            if (line == null) {
                return;
            }
            if (line.isEmpty()) {
                continue;
            }
            boolean head = line.startsWith("HEAD ");
            boolean close = false;
            for (String h; (h = r.readLine()) != null && !h.isEmpty(); ) {
                if (h.toLowerCase().startsWith("connection:") && h.toLowerCase().contains("close")) {
                    close = true;
                }
            }
            String status = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + PAGE.length
                    + "\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n";
            out.write(status.getBytes(StandardCharsets.US_ASCII));
            if (!head) {
                out.write(PAGE);
            }
            out.flush();
            if (close) {
                return;
            }
        }
    }
}
