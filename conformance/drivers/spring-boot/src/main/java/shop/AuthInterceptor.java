package shop;

import io.sentry.Sentry;
import io.sentry.protocol.User;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * What an auth layer does: the signed-in user (here the X-Conformance-User header) goes on the
 * request's scope, which the starter's filter forked for this request.
 */
@Configuration
public class AuthInterceptor implements HandlerInterceptor, WebMvcConfigurer {
  @Override
  public boolean preHandle(
      HttpServletRequest request, HttpServletResponse response, Object handler) {
    User user = new User();
    user.setId(request.getHeader("X-Conformance-User"));
    Sentry.setUser(user);
    return true;
  }

  @Override
  public void addInterceptors(InterceptorRegistry registry) {
    registry.addInterceptor(this);
  }
}
