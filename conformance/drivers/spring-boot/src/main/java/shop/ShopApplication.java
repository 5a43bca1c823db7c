// A small Spring Boot 3 shop with the stock sentry-spring-boot-starter-jakarta, configured the
// way its docs show (application.properties, nothing wired by hand), started by the spring-boot
// conformance driver (../../../run.mjs). Speaks the protocol of conformance/drivers/web-app.mjs
// on its standard streams: `{"listening": port}` once Tomcat accepts requests, `{"sent": id}`
// from the SDK's before-send callback, and on the stdin line `flush` it flushes the SDK, prints
// `{"flushed", "sdk"}` and exits.
package shop;

import io.sentry.Sentry;
import io.sentry.SentryOptions;
import io.sentry.spring.boot.jakarta.BuildConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.servlet.context.ServletWebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
public class ShopApplication {
  /** One protocol line on stdout (the harness ignores lines that are not JSON objects). */
  static synchronized void say(String json) {
    System.out.println(json);
    System.out.flush();
  }

  /**
   * The starter picks this bean up as the SDK's before-send callback. It only tells the harness
   * which event ids the SDK sends; the event is returned unchanged.
   */
  @Bean
  SentryOptions.BeforeSendCallback announceSentEvents() {
    return (event, hint) -> {
      say("{\"sent\":\"" + event.getEventId() + "\"}");
      return event;
    };
  }

  /** Announces the port once the embedded Tomcat listens (server.port=0 picks a free one). */
  @Bean
  ApplicationListener<ServletWebServerInitializedEvent> announcePort() {
    return event -> say("{\"listening\":" + event.getWebServer().getPort() + "}");
  }

  public static void main(String[] args) throws IOException {
    SpringApplication.run(ShopApplication.class, args);
    BufferedReader stdin =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = stdin.readLine()) != null; ) {
      if (line.trim().equals("flush")) break;
    }
    // sentry-java has no flush result: the SDK being enabled (a DSN, a transport) is what the
    // harness can be told, after the flush waited for the transport's queue.
    boolean enabled = Sentry.isEnabled();
    Sentry.flush(5000);
    say(
        "{\"flushed\":"
            + enabled
            + ",\"sdk\":{\"package\":\"io.sentry:sentry-spring-boot-starter-jakarta\",\"version\":\""
            + BuildConfig.VERSION_NAME
            + "\"}}");
    // Skip Spring's orderly shutdown: the harness is done, and the SDK has flushed.
    Runtime.getRuntime().halt(0);
  }
}
