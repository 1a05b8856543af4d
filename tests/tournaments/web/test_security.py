"""What every page tells the browser to refuse (settings.CONTENT_SECURITY_POLICY, django-csp):
scripts, styles and images from this site only, never inline; no plugins, no <base>, forms
posted here only, framed by nobody; Swagger UI and ReDoc with what their bundles need, their
scripts still this site's files. The browser tests (test_browser.py) check that no page breaks
a rule; these, that the rules are sent and that the pages' templates hold nothing inline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[3] / "tournaments"
PAGES = ["/", "/ladders/", "/tournaments/", "/account/sign-in/", "/account/sign-up/", "/admin/login/",
         "/players/999999/"]


def policy(answer) -> dict[str, list[str]]:
    header = answer["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.parametrize("path", PAGES)
def test_every_page_forbids_inline_and_foreign_scripts_styles_and_framing(client, path):
    answer = client.get(path)
    rules = policy(answer)
    assert rules["script-src"] == ["'self'"] and rules["style-src"] == ["'self'"], rules
    assert rules["default-src"] == ["'self'"] and rules["img-src"] == ["'self'"]
    assert rules["object-src"] == ["'none'"] and rules["base-uri"] == ["'none'"]
    assert rules["frame-ancestors"] == ["'none'"] and rules["form-action"] == ["'self'"]
    assert answer["X-Content-Type-Options"] == "nosniff"
    assert answer["X-Frame-Options"] == "DENY"
    assert answer["Referrer-Policy"] == "same-origin"
    assert answer["Cross-Origin-Opener-Policy"] == "same-origin"


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_the_api_docs_pages_allow_what_their_bundles_need_and_no_foreign_or_inline_script(client, path):
    answer = client.get(path)
    assert answer.status_code == 200
    rules = policy(answer)
    assert rules["script-src"] == ["'self'"], rules  # Swagger UI's start-up script is a file too
    assert rules["style-src"] == ["'self'", "'unsafe-inline'"] and rules["img-src"] == ["'self'", "data:"]
    assert rules["worker-src"] == ["blob:"]  # ReDoc's search
    html = answer.content.decode()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), html  # every script has a src


def test_swagger_uis_start_up_script_is_served_as_a_script(client):
    answer = client.get("/api/docs/?script=")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in answer.content and b'"validatorUrl": null' in answer.content


def template_files() -> list[Path]:
    return sorted(p for p in TEMPLATES.rglob("templates/**/*.html"))


@pytest.mark.parametrize("template", template_files(), ids=lambda p: str(p.relative_to(TEMPLATES)))
def test_no_page_template_has_an_inline_script_handler_or_style_attribute(template):
    html = template.read_text(encoding="utf-8")
    if template.name == "redoc.html":  # ReDoc's page: its styles are inline by design (allowed there)
        html = re.sub(r"<style>.*?</style>", "", html, flags=re.S)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "an inline <script>"
    assert not re.search(r"\son[a-z]+\s*=", html), "an inline event handler"
    assert not re.search(r"\sstyle\s*=", html), "a style attribute"
    assert "<style" not in html, "a <style> element"
    assert "javascript:" not in html
