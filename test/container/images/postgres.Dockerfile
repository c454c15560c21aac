# A stand-in for the public postgres:15 image where it cannot be pulled (the compose test): Debian
# bookworm's PostgreSQL 15 on the same base as Promptline's image, started as the public image is,
# from POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB, its data in /var/lib/postgresql/data.
ARG BASE_IMAGE=docker.io/library/node:24-bookworm-slim
FROM ${BASE_IMAGE}
RUN mkdir -p /etc/postgresql-common && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf \
  && apt-get update && apt-get install -y --no-install-recommends postgresql-15 && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
  && chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql && chmod 700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin PGDATA=/var/lib/postgresql/data
USER postgres
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
