package shop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** The shop's routes: a health check, and an order lookup that fails with an unhandled error. */
@RestController
public class OrderController {
  private static final Logger log = LoggerFactory.getLogger(OrderController.class);

  /** Thrown by the order route; no handler of the app catches it. */
  static final class OrderUnavailableException extends RuntimeException {
    OrderUnavailableException(String message) {
      super(message);
    }
  }

  @GetMapping("/health")
  public String health() {
    return "ok";
  }

  /** Logs what it does (sentry-logback makes it a breadcrumb), then fails. */
  @GetMapping("/orders/{id}")
  public String order(@PathVariable("id") String id) {
    log.warn("loading order {}", id);
    throw new OrderUnavailableException("order " + id + " could not be loaded");
  }
}
