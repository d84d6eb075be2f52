#!/bin/sh
# Runs once, when the PostgreSQL container initialises an empty data directory (docker-entrypoint-initdb.d):
# the roles and grants of docs/operations.md "Database roles". The owner runs `deputy migrate`; the app role (DML only,
# not a superuser, owns nothing) runs the service, so it cannot switch the fact log's triggers off.
# DB_NAME / DB_OWNER / DB_APP default to deputy / deputy_owner / deputy_app.
set -eu
: "${DB_OWNER_PASSWORD:?set DB_OWNER_PASSWORD in .env}"
: "${DB_APP_PASSWORD:?set DB_APP_PASSWORD in .env}"
DB_NAME="${DB_NAME:-deputy}"
DB_OWNER="${DB_OWNER:-deputy_owner}"
DB_APP="${DB_APP:-deputy_app}"

psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname postgres \
    -v owner="$DB_OWNER" -v app="$DB_APP" -v db="$DB_NAME" \
    -v owner_password="$DB_OWNER_PASSWORD" -v app_password="$DB_APP_PASSWORD" <<'SQL'
CREATE ROLE :"owner" LOGIN PASSWORD :'owner_password';
CREATE ROLE :"app" LOGIN PASSWORD :'app_password';
CREATE DATABASE :"db" OWNER :"owner";
SQL

psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname "$DB_NAME" \
    -v owner="$DB_OWNER" -v app="$DB_APP" <<'SQL'
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA public TO :"owner";
GRANT USAGE ON SCHEMA public TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT USAGE ON SEQUENCES TO :"app";
SQL
