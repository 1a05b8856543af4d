"""People's accounts: signing up (docs/api.md, "Accounts"). Signing in and out is Django's own
session login, through the API's ``session`` endpoint."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator
from django.db import transaction

from tournaments import limits
from tournaments.errors import ServiceError

USERNAME_MAX = 64  # shorter than Django's 150: it is shown on leaderboards and tables
EMAIL_MAX = 254


@transaction.atomic
def account_create(*, username: str, password: str, email: str = ""):
    """A new person's account. The username: 1 to USERNAME_MAX letters, digits and @.+-_ (Django's
    rule), unique whatever its case (``Ada`` and ``ada`` would be told apart by nobody at a
    table). The password: Django's validators (AUTH_PASSWORD_VALIDATORS: long enough, not
    common, not all digits, not like the username). The e-mail address is optional."""
    User = get_user_model()
    limits.check_text(username, "username", USERNAME_MAX)
    limits.check_text(password, "password", 4096)
    limits.check_text(email, "email", EMAIL_MAX)
    try:
        User.username_validator(username)
    except ValidationError as exc:
        raise ServiceError(" ".join(exc.messages), "username") from None
    if not username:
        raise ServiceError("a username is 1 to 64 characters", "username")
    if email:
        try:
            EmailValidator()(email)
        except ValidationError:
            raise ServiceError("that is not an e-mail address", "email") from None
    if User.objects.select_for_update().filter(username__iexact=username).exists():
        raise ServiceError(f"the username {username!r} is taken", "username", code="unique")
    try:
        validate_password(password, User(username=username, email=email))
    except ValidationError as exc:
        raise ServiceError(" ".join(exc.messages), "password") from None
    return User.objects.create_user(username=username, password=password, email=email)
