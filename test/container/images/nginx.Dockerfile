# A stand-in for the public nginx image where it cannot be pulled (the compose test): Debian
# bookworm's nginx on the same base as Promptline's image, reading /etc/nginx/conf.d/*.conf as the
# public image does, in the foreground.
ARG BASE_IMAGE=docker.io/library/node:24-bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends nginx && rm -rf /var/lib/apt/lists/* \
  && rm -f /etc/nginx/sites-enabled/default \
  && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
EXPOSE 8000
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
