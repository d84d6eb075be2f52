def test_healthz_reports_database_ok_without_token(client):
    response = client.get("/healthz", headers={"Authorization": ""})
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "db": "ok", "redis": "disabled"}
