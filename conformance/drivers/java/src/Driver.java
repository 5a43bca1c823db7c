// Conformance driver for the stock Java SDK (io.sentry:sentry, newest 8.x and last 7.x),
// unmodified. The same source builds against both (scripts/setup-drivers.mjs): logs, new in 8.x,
// are reached by reflection where the SDK has them.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     java -cp '.cache/drivers/java/classes:.cache/drivers/java/lib/*' Driver \
//       [crons|quota] <scenario> [--slug <slug>]
//
// Scenarios:
//   grouping         the same exception twice from one code path, two messages differing in a number
//   crons interval   a job on a 10-minute interval schedule (margin 2), 1.5 s long, reported ok
//   quota unsupported  a transaction, a log line and an event with an attachment (tracing on)
//   sessions manual  a session with a handled exception (errored), ended: --release r --user u
//   sessions clean   a session with nothing going wrong (exited): --release r --user u
//   large            one message (the SDK gzips every request body: the compressed scenario)
//   quota ratelimit  quota 3 per 4 s: 3 events, a 4th (answered 429), 3 more the SDK must hold
//                    back, then after the announced time one more
// Prints one JSON line: {"sdk":{"package","version"},"scenario",...} like the other drivers.

import io.sentry.Attachment;
import io.sentry.BuildConfig;
import io.sentry.CheckIn;
import io.sentry.CheckInStatus;
import io.sentry.ITransaction;
import io.sentry.MonitorConfig;
import io.sentry.MonitorSchedule;
import io.sentry.MonitorScheduleUnit;
import io.sentry.Sentry;
import io.sentry.SentryLevel;
import io.sentry.SentryOptions;
import io.sentry.protocol.SentryId;
import io.sentry.protocol.User;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Driver {
  /** The quota window the runner configures; waiting longer outlasts Retry-After. */
  private static final int WINDOW_SECONDS = 4;

  /** The exception the grouping scenario throws, so the issue title names it. */
  static final class ConformanceException extends RuntimeException {
    ConformanceException(String message) {
      super(message);
    }
  }

  /** Always throws from the same line: identical stack traces, one issue. */
  private static void boom() {
    throw new ConformanceException("conformance boom");
  }

  private static String id(SentryId id) {
    return id.toString().replace("-", "");
  }

  private static String captureOne(String text) {
    String id = id(Sentry.captureMessage(text, SentryLevel.ERROR));
    Sentry.flush(5000);
    return id;
  }

  private static Map<String, List<String>> groups(String... labels) {
    Map<String, List<String>> groups = new LinkedHashMap<>();
    for (String label : labels) groups.put(label, new ArrayList<>());
    return groups;
  }

  private static Map<String, List<String>> grouping() {
    Map<String, List<String>> groups = groups("exception", "message");
    for (int order : new int[] {17, 42}) {
      try {
        boom();
      } catch (ConformanceException e) {
        groups.get("exception").add(id(Sentry.captureException(e)));
      }
      Sentry.flush(5000);
      groups.get("message").add(id(Sentry.captureMessage("conformance order " + order + " failed")));
      Sentry.flush(5000);
    }
    return groups;
  }

  private static Map<String, List<String>> ratelimit() throws InterruptedException {
    Map<String, List<String>> groups = groups("accepted", "refused", "held_back", "after_window");
    for (int i = 0; i < 3; i++) groups.get("accepted").add(captureOne("ratelimit " + i));
    groups.get("refused").add(captureOne("ratelimit over quota"));
    for (int i = 0; i < 3; i++) groups.get("held_back").add(captureOne("held back " + i));
    Thread.sleep(WINDOW_SECONDS * 1000L + 500);
    groups.get("after_window").add(captureOne("after the window"));
    return groups;
  }

  private static Map<String, List<String>> large() {
    Map<String, List<String>> groups = groups("large");
    groups.get("large").add(id(Sentry.captureMessage("conformance large payload", SentryLevel.INFO)));
    Sentry.flush(5000);
    return groups;
  }

  /** Turns logs on where the SDK has them (8.x: options.getLogs()); 7.x has no logs. */
  private static void enableLogs(SentryOptions options) {
    try {
      Object logs = SentryOptions.class.getMethod("getLogs").invoke(options);
      Class.forName("io.sentry.SentryOptions$Logs")
          .getMethod("setEnabled", boolean.class)
          .invoke(logs, true);
    } catch (NoSuchMethodException e) {
      // 7.x: no logs; the matrix declares that row's unsupported-items cell not supported.
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Sentry.logger().info(text) where the SDK has logs (8.x). */
  private static void logInfo(String text) {
    try {
      Object logger = Sentry.class.getMethod("logger").invoke(null);
      Class.forName("io.sentry.logger.ILoggerApi")
          .getMethod("info", String.class, Object[].class)
          .invoke(logger, text, new Object[0]);
    } catch (NoSuchMethodException e) {
      // 7.x: no logs.
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, List<String>> unsupported() {
    Map<String, List<String>> groups = groups("event");
    ITransaction transaction = Sentry.startTransaction("conformance transaction", "task");
    transaction.finish();
    logInfo("conformance log line");
    SentryId event =
        Sentry.captureMessage(
            "conformance event with attachment",
            scope ->
                scope.addAttachment(
                    new Attachment("conformance attachment".getBytes(), "conformance.txt")));
    groups.get("event").add(id(event));
    Sentry.flush(5000);
    return groups;
  }

  private static String interval(String slug) throws InterruptedException {
    MonitorConfig config =
        new MonitorConfig(MonitorSchedule.interval(10, MonitorScheduleUnit.MINUTE));
    config.setCheckinMargin(2L);
    config.setMaxRuntime(5L);
    config.setTimezone("UTC");
    CheckIn started = new CheckIn(slug, CheckInStatus.IN_PROGRESS);
    started.setMonitorConfig(config);
    SentryId checkInId = Sentry.captureCheckIn(started);
    Sentry.flush(5000);
    Thread.sleep(1500);
    CheckIn done = new CheckIn(checkInId, slug, CheckInStatus.OK);
    done.setDuration(1.5);
    done.setMonitorConfig(config);
    Sentry.captureCheckIn(done);
    Sentry.flush(5000);
    return id(checkInId);
  }

  private static String json(Object value) {
    if (value instanceof String s) {
      return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
    if (value instanceof List<?> list) {
      List<String> parts = new ArrayList<>();
      for (Object o : list) parts.add(json(o));
      return "[" + String.join(",", parts) + "]";
    }
    if (value instanceof Map<?, ?> map) {
      List<String> parts = new ArrayList<>();
      for (Map.Entry<?, ?> e : map.entrySet()) parts.add(json(e.getKey()) + ":" + json(e.getValue()));
      return "{" + String.join(",", parts) + "}";
    }
    throw new IllegalArgumentException("cannot encode " + value);
  }

  public static void main(String[] argv) throws Exception {
    List<String> args = new ArrayList<>(List.of(argv));
    if (!args.isEmpty() && List.of("crons", "quota", "sessions").contains(args.get(0))) {
      args.remove(0);
    }
    String scenario = null;
    String slug = null;
    String release = "conformance@1.0.0";
    String user = null;
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i).equals("--slug") && i + 1 < args.size()) slug = args.get(++i);
      else if (args.get(i).equals("--release") && i + 1 < args.size()) release = args.get(++i);
      else if (args.get(i).equals("--user") && i + 1 < args.size()) user = args.get(++i);
      else if (scenario == null && !args.get(i).startsWith("--")) scenario = args.get(i);
      else throw new IllegalArgumentException("unexpected argument " + args.get(i));
    }
    final String finalScenario = scenario;
    final String finalRelease = release;
    String dsn = System.getenv("SENTRY_TEST_DSN");
    if (dsn == null || dsn.isEmpty()) throw new IllegalStateException("SENTRY_TEST_DSN is not set");
    Sentry.init(
        options -> {
          options.setDsn(dsn);
          options.setRelease(finalRelease);
          options.setEnvironment("test");
          // Tracing and logs only where the scenario needs them.
          if ("unsupported".equals(finalScenario)) {
            options.setTracesSampleRate(1.0);
            enableLogs(options);
          }
        });
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("scenario", scenario == null ? "" : scenario);
    if (List.of("grouping", "ratelimit", "large", "unsupported").contains(scenario)) {
      Map<String, List<String>> groups =
          switch (scenario) {
            case "grouping" -> grouping();
            case "ratelimit" -> ratelimit();
            case "unsupported" -> unsupported();
            default -> large();
          };
      List<String> ids = new ArrayList<>();
      for (List<String> g : groups.values()) ids.addAll(g);
      fields.put("event_ids", ids);
      fields.put("groups", groups);
    } else if ("manual".equals(scenario) || "clean".equals(scenario)) {
      if (user != null) {
        User u = new User();
        u.setId(user);
        Sentry.setUser(u);
      }
      Sentry.startSession();
      if ("manual".equals(scenario)) {
        try {
          boom();
        } catch (ConformanceException e) {
          Sentry.captureException(e);
        }
      }
      Sentry.endSession();
      fields.put("release", release);
    } else if ("interval".equals(scenario) && slug != null) {
      fields.put("slug", slug);
      fields.put("check_in_ids", List.of(interval(slug)));
    } else {
      System.err.println(
          "usage: Driver [crons|quota] <grouping|large|ratelimit|unsupported|interval|manual|clean> [--slug s]; got " + scenario);
      System.exit(2);
    }
    Sentry.flush(5000);
    Map<String, Object> sdk = new LinkedHashMap<>();
    sdk.put("package", "io.sentry:sentry");
    sdk.put("version", BuildConfig.VERSION_NAME);
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("sdk", sdk);
    line.putAll(fields);
    System.out.println(json(line));
    Sentry.close();
    System.exit(0);
  }
}
