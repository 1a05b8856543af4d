def test_the_openapi_schema_is_served(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert response.json()["info"]["title"] == "Mazziere API"


def test_the_api_docs_page_is_served(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
