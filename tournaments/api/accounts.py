"""Accounts and the browser's session (docs/api.md, "Accounts"): sign up, sign in and out,
and who am I."""

from __future__ import annotations

from django.contrib.auth import authenticate, login, logout
from django.middleware.csrf import get_token
from drf_spectacular.utils import extend_schema
from rest_framework import authentication, permissions, serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from tournaments.services import accounts

from .schema import api_errors
from .throttles import ScopeThrottle


class AccountSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=accounts.USERNAME_MAX)
    password = serializers.CharField(write_only=True, max_length=4096, trim_whitespace=False,
                                     style={"input_type": "password"})
    email = serializers.EmailField(required=False, allow_blank=True, max_length=accounts.EMAIL_MAX)


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    email = serializers.CharField()
    is_staff = serializers.BooleanField()
    date_joined = serializers.DateTimeField()


class SignInSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False, style={"input_type": "password"})


class SessionSerializer(serializers.Serializer):
    username = serializers.CharField(allow_null=True, help_text="null: not signed in")


def _me(user) -> dict:
    return {"username": user.username, "email": user.email, "is_staff": user.is_staff, "date_joined": user.date_joined}


class AccountsView(APIView):
    """``POST /api/accounts/``: sign up (anyone, ``API_ACCOUNTS_RATE`` per address);
    ``GET /api/accounts/``: your own account."""

    permission_classes = [permissions.AllowAny]
    throttle_classes = [*api_settings.DEFAULT_THROTTLE_CLASSES, ScopeThrottle]
    throttle_scope = "accounts"
    throttle_scope_methods = ("POST",)  # the sign-up budget counts sign-ups, not reads

    @extend_schema(responses=MeSerializer)
    def get(self, request):
        """Your account (401 when anonymous)."""
        if not request.user.is_authenticated:
            self.permission_denied(request)
        return Response(MeSerializer(_me(request.user)).data)

    @extend_schema(request=AccountSerializer, responses={201: MeSerializer})
    def post(self, request):
        """Sign up: a new person's account. Then sign in (``POST /api/session/``) or make a
        token with the username and password (``POST /api/tokens/``, HTTP Basic)."""
        data = AccountSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = accounts.account_create(**data.validated_data)
        return Response(MeSerializer(_me(user)).data, status=status.HTTP_201_CREATED)


class SessionView(APIView):
    """The browser's session: ``GET`` who is signed in (and the CSRF cookie a browser sends
    back), ``POST`` sign in, ``DELETE`` sign out. Sign-in is CSRF-checked like any form."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=SessionSerializer)
    def get(self, request):
        """Who is signed in (``username`` null: nobody); sets the ``csrftoken`` cookie."""
        get_token(request._request)  # the middleware sets the cookie on the way out
        return Response({"username": request.user.username if request.user.is_authenticated else None})

    @api_errors(403)
    @extend_schema(request=SignInSerializer, responses=SessionSerializer)
    def post(self, request):
        """Sign in with a username and password: the session cookie. Needs the CSRF token
        (the ``csrftoken`` cookie, sent back in ``X-CSRFToken``). A wrong username or password
        is one 400, whichever it was. Attempts count against the sign-in budgets per address
        and per account (429 beyond, the right password too: tournaments/signin.py)."""
        authentication.SessionAuthentication().enforce_csrf(request)
        data = SignInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request._request, **data.validated_data)
        if user is None:
            raise ValidationError({"password": ["wrong username or password"]})
        login(request._request, user)
        return Response({"username": user.username})

    @extend_schema(request=None, responses={200: SessionSerializer})
    def delete(self, request):
        """Sign out."""
        logout(request._request)
        return Response({"username": None})
